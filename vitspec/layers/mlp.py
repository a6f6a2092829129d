import torch
from torch import nn

from .token_layout import TokenLayout


class Mlp(nn.Module):
    """timm's Mlp (fc1, GELU, fc2; the same parameter names), whose fc2 can carry the block's
    LayerScale (see `layer_scale`)."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(
        self, x: torch.Tensor, layout: TokenLayout = TokenLayout(), layer_scale: nn.Module = None
    ) -> torch.Tensor:
        h = self.act(self.fc1(x))
        if layer_scale is None:
            return self.fc2(h)
        return layer_scale.scale_linear(h, self.fc2, layout.num_cls)
