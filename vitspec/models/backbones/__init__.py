from .spec_vit import SpecViT

__all__ = ['SpecViT']
