from .backbones import SpecViT

__all__ = ['SpecViT']
