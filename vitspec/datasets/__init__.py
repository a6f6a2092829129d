"""Importing this package registers its modules."""
from .checked_loading import (  # noqa: F401
    CheckedLoadAnnotations, CheckedLoadImageFromFile, DataFileError)
from .checked_coco import CheckedCocoDataset  # noqa: F401
from .det_transforms import FixedSizePad  # noqa: F401
from .depth_transforms import KBCrop, LoadDepthPNG, RegionCrop  # noqa: F401
from .kitti_depth import KITTIDepthDataset  # noqa: F401
