"""Importing this package registers its modules."""

from .depth_metric import DepthErrorMetric  # noqa: F401
