"""ViT-Adapter's extractor: the multi-level spatial features gather the ViT's patch tokens by
deformable cross-attention, then a convolutional FFN."""

from typing import Sequence, Tuple

import torch
from timm.layers import DropPath
from torch import nn

from vitspec.layers import LayerNorm

from .deformable_cross_attention import DeformInputs, build_deformable_attention, cross_attend
from .multi_level_conv_ffn import MultiLevelConvFFN


class AdapterExtractor(nn.Module):
    """``c + attn(norm(c), norm(vit))``, then ``+ drop_path(ffn(norm(c)))`` when ``with_cffn``
    (arXiv 2205.08534 Eq. 3-4; parameter names as czczup/ViT-Adapter ``Extractor``)."""

    def __init__(
        self,
        dim: int,
        num_heads: int = 6,
        num_points: int = 4,
        deform_ratio: float = 1.0,
        with_cffn: bool = True,
        cffn_ratio: float = 0.25,
        drop_path: float = 0.0,
        norm_eps: float = 1e-6,
    ):
        super().__init__()
        self.query_norm = LayerNorm(dim, eps=norm_eps)
        self.feat_norm = LayerNorm(dim, eps=norm_eps)
        self.attn = build_deformable_attention(dim, num_heads, 1, num_points, deform_ratio)
        self.with_cffn = with_cffn
        if with_cffn:
            self.ffn = MultiLevelConvFFN(dim, int(dim * cffn_ratio))
            self.ffn_norm = LayerNorm(dim, eps=norm_eps)
            self.drop_path = DropPath(drop_path) if drop_path > 0 else nn.Identity()

    def forward(
        self,
        query: torch.Tensor,
        vit_tokens: torch.Tensor,
        inputs: DeformInputs,
        level_shapes: Sequence[Tuple[int, int]],
    ) -> torch.Tensor:
        query = query + cross_attend(
            self.attn, self.query_norm(query), self.feat_norm(vit_tokens), inputs
        )
        if self.with_cffn:
            query = query + self.drop_path(self.ffn(self.ffn_norm(query), level_shapes))
        return query
