"""SwiGLU MLP (Shazeer 2002.05202) as DINOv2 ViT-g uses it: ``fc2(silu(x1) * x2)`` where
``[x1 | x2] = fc1(x)``.

``fc1`` packs both halves, gate first: DINOv2's ``mlp.w12`` and timm's ``SwiGLUPacked`` fc1 (a
GluMlp with ``gate_last=False``) store the same matrix in the same order, so checkpoints map by
name alone (w12 -> fc1, w3 -> fc2).
"""

import torch
import torch.nn.functional as F
from torch import nn

from .token_layout import TokenLayout


def swiglu_hidden(mlp_hidden: int) -> int:
    """DINOv2's SwiGLUFFNFused width rule: 2/3 of the plain MLP's hidden width, rounded up to
    a multiple of 8 (same parameter count as the plain MLP); ViT-g: 4 * 1536 -> 4096."""
    return (int(mlp_hidden * 2 / 3) + 7) // 8 * 8


class SwiGLU(nn.Module):
    """fc1: dim -> 2 * hidden (gate, value), fc2: hidden -> dim; ``hidden`` is the gated width
    (apply `swiglu_hidden` to a plain MLP width first)."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(dim, 2 * hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor, layout: TokenLayout = TokenLayout()) -> torch.Tensor:
        gate, value = self.fc1(x).chunk(2, dim=-1)
        h = F.silu(gate) * value
        return self.fc2(h)
