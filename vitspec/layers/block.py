from functools import partial

import torch
from timm.layers import DropPath, LayerScale, Mlp
from torch import nn

from .attention import Attention

LayerNorm = partial(nn.LayerNorm, eps=1e-6)


class Block(nn.Module):
    """Pre-norm transformer block; names follow timm (norm1, attn, ls1, norm2, mlp, ls2)."""

    def __init__(self, dim: int, num_heads: int, mlp_hidden: int, qkv_bias: bool = True,
                 layer_scale_init: float = None, drop_path: float = 0.0):
        super().__init__()
        self.norm1 = LayerNorm(dim)
        self.attn = Attention(dim, num_heads, qkv_bias=qkv_bias)
        self.ls1 = LayerScale(dim, layer_scale_init) if layer_scale_init else nn.Identity()
        self.drop_path1 = DropPath(drop_path) if drop_path > 0 else nn.Identity()
        self.norm2 = LayerNorm(dim)
        self.mlp = Mlp(dim, mlp_hidden, act_layer=nn.GELU)
        self.ls2 = LayerScale(dim, layer_scale_init) if layer_scale_init else nn.Identity()
        self.drop_path2 = DropPath(drop_path) if drop_path > 0 else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.drop_path1(self.ls1(self.attn(self.norm1(x))))
        return x + self.drop_path2(self.ls2(self.mlp(self.norm2(x))))
