"""LayerScale (CaiT) as a block part: each kind says how it scales the linear layer before it.

A block hands its LayerScale to the attention and the MLP, which call
``layer_scale.scale_linear(x, linear, num_cls)`` on their last linear layer: the scale is fused
into that layer (see `layer_scaled_linear`), so it keeps no activation of its own.
"""

import torch
from timm.layers import LayerScale as TimmLayerScale
from torch import nn

from .layer_scaled_linear import layer_scaled_linear


class LayerScale(TimmLayerScale):
    """timm's LayerScale (``x * gamma``, the same parameter), fusable into a linear layer."""

    def __init__(self, dim: int, init_value: float = 1e-5):
        super().__init__(dim, init_values=init_value)

    def scale_linear(self, x: torch.Tensor, linear: nn.Linear, num_cls: int = 0) -> torch.Tensor:
        """``self(linear(x))``; all tokens share ``gamma``, so ``num_cls`` is unused."""
        return layer_scaled_linear(x, linear, self.gamma)


class NoLayerScale(nn.Identity):
    """A block without LayerScale (timm's Identity in its place)."""

    def scale_linear(self, x: torch.Tensor, linear: nn.Module, num_cls: int = 0) -> torch.Tensor:
        return linear(x)
