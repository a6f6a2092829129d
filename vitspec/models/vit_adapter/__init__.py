"""ViT-Adapter (arXiv 2205.08534) around SpecViT, in one package: the backbone, its spatial prior,
injectors, extractors and their deformable cross-attention. Importing it registers ViTAdapter."""

from .backbone import ViTAdapter

__all__ = ['ViTAdapter']
