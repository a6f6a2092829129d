"""timm's two-layer MLP (fc1, GELU, fc2) as a transformer block part."""

import torch
from torch import nn

from .token_layout import TokenLayout


class Mlp(nn.Module):
    """timm's Mlp (fc1, GELU, fc2; the same parameter names), called as a block part."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor, layout: TokenLayout = TokenLayout()) -> torch.Tensor:
        h = self.act(self.fc1(x))
        return self.fc2(h)
