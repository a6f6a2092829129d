"""Importing this package registers its modules."""

from .dataset_coco_metric import DatasetCocoMetric  # noqa: F401
from .depth_metric import DepthErrorMetric  # noqa: F401
from .panoptic_metric import PanopticQualityMetric  # noqa: F401
from .probe_grid_metric import ProbeGridMetric  # noqa: F401
