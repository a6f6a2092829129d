"""Importing this package registers its modules."""
from .linear_bn_head import LinearBNHead  # noqa: F401
