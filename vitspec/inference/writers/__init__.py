"""What prediction writes for each task, in formats other programs read."""

from .depth import DepthWriter, depth_colour_picture, depth_to_millimetres
from .detection import DetectionWriter
from .panoptic import PanopticWriter
from .panoptic_model import PanopticModelWriter
from .segmentation import SegmentationWriter, colour_labels, label_image

__all__ = [
    'DepthWriter',
    'DetectionWriter',
    'PanopticModelWriter',
    'PanopticWriter',
    'SegmentationWriter',
    'colour_labels',
    'depth_colour_picture',
    'depth_to_millimetres',
    'label_image',
]
