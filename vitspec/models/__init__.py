from . import heads, losses, necks, segmentors  # noqa: F401  (register)
from .backbones import SpecViT

__all__ = ['SpecViT']
