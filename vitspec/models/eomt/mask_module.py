"""EoMT's mask module (arXiv 2503.19108 Sec. 3; tue-mps/eomt models/eomt.py): per-query class
logits and mask logits from the query tokens and the upscaled patch-token map."""

import math

import torch
from torch import nn

from .scale_block import ScaleBlock


def num_upscale_blocks(patch_size: int) -> int:
    """Upstream's count: ``max(1, int(log2(patch)) - 2)`` (patch 16: 2 blocks, 4x; 14: 1, 2x)."""
    return max(1, int(math.log2(patch_size)) - 2)


class EoMTHead(nn.Module):
    """``class_head``: Linear(C, K + 1) (the last class is "no object"); ``mask_head``: a
    3-layer MLP with GELU on the queries; ``upscale``: `ScaleBlock` s on the patch map. Mask
    logits are the dot products of each query's mask embedding with every upscaled pixel.
    Parameter names are upstream's, so its checkpoints map one to one.
    """

    def __init__(self, dim: int, num_classes: int, patch_size: int):
        super().__init__()
        self.class_head = nn.Linear(dim, num_classes + 1)
        self.mask_head = nn.Sequential(
            nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim)
        )
        self.upscale = nn.Sequential(
            *[ScaleBlock(dim) for _ in range(num_upscale_blocks(patch_size))]
        )

    def forward(self, queries: torch.Tensor, patch_map: torch.Tensor):
        """queries (B, Q, C), patch_map (B, C, h, w) -> (mask logits (B, Q, s*h, s*w), class
        logits (B, Q, K + 1)), s = 2 ** len(upscale)."""
        mask_embed = self.mask_head(queries)
        mask_logits = torch.einsum('bqc,bchw->bqhw', mask_embed, self.upscale(patch_map))
        return mask_logits, self.class_head(queries)
