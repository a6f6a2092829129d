from . import eomt, heads, losses, necks, plain_detr, segmentors, vit_adapter  # noqa: F401
from .backbones import SpecViT

__all__ = ['SpecViT']
