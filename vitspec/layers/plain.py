"""The plain counterparts of the specialized layers: torch's LayerNorm and Linear, called like
them (``forward(x, layout)``) so that a block calls every part the same way. ``layout`` is
unused: every token shares the one set of parameters."""

import torch
from torch import nn


class LayerNorm(nn.LayerNorm):
    """nn.LayerNorm over the last dim with timm's ViT eps (1e-6)."""

    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__(dim, eps=eps)

    def forward(self, x: torch.Tensor, layout=None) -> torch.Tensor:
        return super().forward(x)


class Linear(nn.Linear):
    """nn.Linear."""

    def forward(self, x: torch.Tensor, layout=None) -> torch.Tensor:
        return super().forward(x)
