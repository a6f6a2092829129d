from . import eomt, heads, losses, necks, segmentors, vit_adapter  # noqa: F401  (register)
from .backbones import SpecViT

__all__ = ['SpecViT']
