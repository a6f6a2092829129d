from .spec_vit import SpecViT
from .vit_adapter import ViTAdapter

__all__ = ['SpecViT', 'ViTAdapter']
