import torch
from torch import nn

from .layer_scaled_linear import layer_scaled_linear


class Mlp(nn.Module):
    """timm's Mlp (fc1, GELU, fc2; the same parameter names), whose fc2 can carry the block's
    LayerScale (see `layer_scaled_linear`)."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor, layer_scale: nn.Module = None,
                num_cls: int = 0) -> torch.Tensor:
        return layer_scaled_linear(self.act(self.fc1(x)), self.fc2, layer_scale, num_cls)
