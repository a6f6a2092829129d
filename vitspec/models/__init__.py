from . import heads, losses  # noqa: F401  (register)
from .backbones import SpecViT

__all__ = ['SpecViT']
