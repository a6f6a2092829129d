"""Backbones: SpecViT, one ViT whose techniques are options of its config."""

from .spec_vit import SpecViT

__all__ = ['SpecViT']
