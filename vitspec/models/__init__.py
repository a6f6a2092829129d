from . import (  # noqa: F401
    eomt,
    heads,
    losses,
    necks,
    plain_detr,
    probe_grid,
    segmentors,
    shared_backbone,
    vit_adapter,
)
from .backbones import SpecViT

__all__ = ['SpecViT']
