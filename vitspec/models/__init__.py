"""The models of vitspec: the SpecViT backbone and the heads, necks, losses, segmentors and
detectors around it. Importing this package registers them."""

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
