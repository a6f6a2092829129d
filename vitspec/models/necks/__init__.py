"""Necks between a ViT backbone and its head: a sequence of necks, and ViTDet's simple
feature pyramid."""

from .sequential_neck import SequentialNeck
from .simple_fpn import SimpleFPN

__all__ = ['SequentialNeck', 'SimpleFPN']
