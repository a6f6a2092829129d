"""Importing this package registers its modules."""

from .dpt_depth_head import DPTDepthHead  # noqa: F401
from .linear_bn_head import LinearBNHead  # noqa: F401
from .linear_depth_head import LinearDepthHead  # noqa: F401
