"""EoMT, the encoder-only mask transformer (arXiv 2503.19108), in one package: the segmentor,
its network on SpecViT, the mask module, the loss, the query blocks' parts, the
released-checkpoint format, the mask-annealing hook and the panoptic / instance detector.
Importing it registers EoMT, EoMTPanoptic and MaskAnnealingHook."""

from .mask_annealing import MaskAnnealingHook
from .network import EoMTNetwork
from .panoptic import EoMTPanoptic
from .query_block import query_block_parts
from .segmentor import EoMT

__all__ = [
    'EoMT',
    'EoMTNetwork',
    'EoMTPanoptic',
    'MaskAnnealingHook',
    'query_block_parts',
]
