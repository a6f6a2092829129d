"""LayerScale (CaiT, arXiv 2103.17239): a learned per-channel scale on a residual branch.

timm's ``x * gamma`` as a separate op after the branch, as timm and DINOv2 write it: under
autocast that product promotes the half-precision branch to gamma's float32, and its backward is
two elementwise ops and a sum. Fusing the scale into the branch's last linear layer saves that
output's memory but costs a recomputed projection under autocast (13 % more FLOPs in a ViT).
"""

import torch
from timm.layers import LayerScale as TimmLayerScale
from torch import nn


class LayerScale(TimmLayerScale):
    """timm's LayerScale (``x * gamma``, the same parameter); ``layout`` is unused (all tokens
    share gamma), accepted so that a block calls every LayerScale alike."""

    def __init__(self, dim: int, init_value: float = 1e-5):
        super().__init__(dim, init_values=init_value)

    def forward(self, x: torch.Tensor, layout=None) -> torch.Tensor:
        return super().forward(x)

    def add_to(self, residual: torch.Tensor, x: torch.Tensor, layout=None) -> torch.Tensor:
        """``residual + self(x)``, timm's two ops (a block's skip connection)."""
        return residual + self(x)


class NoLayerScale(nn.Module):
    """A block without LayerScale (timm's Identity in its place)."""

    def forward(self, x: torch.Tensor, layout=None) -> torch.Tensor:
        return x

    def add_to(self, residual: torch.Tensor, x: torch.Tensor, layout=None) -> torch.Tensor:
        return residual + x
