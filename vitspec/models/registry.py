"""Registration of vitspec modules in the mmseg and mmdet registries."""

from mmdet.registry import MODELS as MMDET_MODELS
from mmseg.registry import MODELS as MMSEG_MODELS


def register_backbone(cls):
    """Register a backbone in both mmseg's and mmdet's MODELS (configs of either scope)."""
    MMSEG_MODELS.register_module(module=cls)
    MMDET_MODELS.register_module(module=cls)
    return cls
