"""Importing this package registers its modules."""

from .check_sample_files import CheckSampleFiles  # noqa: F401
from .checked_coco import CheckedCocoDataset  # noqa: F401
from .checked_coco_panoptic import CheckedCocoPanopticDataset  # noqa: F401
from .depth_transforms import KBCrop, LoadDepthPNG, RegionCrop  # noqa: F401
from .det_transforms import FixedSizePad  # noqa: F401
from .empty_targets import EoMTADE20KDataset, EoMTCityscapesDataset  # noqa: F401
from .kitti_depth import KITTIDepthDataset  # noqa: F401
from .panoptic_loading import LoadPanopticPNG  # noqa: F401
