"""ViT-Adapter's injector: the ViT's patch tokens gather the spatial prior by deformable
cross-attention, added with a learned per-channel scale (zero at init: the ViT starts as it was)."""

import torch
from torch import nn

from vitspec.layers import LayerNorm

from .deformable_cross_attention import DeformInputs, build_deformable_attention, cross_attend


class AdapterInjector(nn.Module):
    """``query + gamma * attn(norm(query), norm(prior))`` over the 3 prior levels
    (arXiv 2205.08534 Eq. 2; parameter names as czczup/ViT-Adapter ``Injector``)."""

    def __init__(
        self,
        dim: int,
        num_heads: int = 6,
        num_points: int = 4,
        num_levels: int = 3,
        deform_ratio: float = 1.0,
        init_values: float = 0.0,
        norm_eps: float = 1e-6,
    ):
        super().__init__()
        self.query_norm = LayerNorm(dim, eps=norm_eps)
        self.feat_norm = LayerNorm(dim, eps=norm_eps)
        self.attn = build_deformable_attention(dim, num_heads, num_levels, num_points, deform_ratio)
        self.gamma = nn.Parameter(torch.full((dim,), float(init_values)))

    def forward(self, query: torch.Tensor, prior: torch.Tensor, inputs: DeformInputs):
        attn = cross_attend(self.attn, self.query_norm(query), self.feat_norm(prior), inputs)
        return query + self.gamma * attn
