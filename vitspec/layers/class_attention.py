"""CaiT's class attention and class-attention block: the CLS token reads the patches and is
the only token updated."""

import torch
import torch.nn.functional as F
from timm.layers import LayerScale, Mlp
from torch import nn

from .plain import LayerNorm
from .rope import Rotation, apply_rope


class ClassAttention(nn.Module):
    """CaiT class attention: the query from the CLS token only, keys/values from [CLS, patches].

    Separate q, k, v projections (timm's cait names). Input (B, 1+N, D) with CLS first,
    output (B, 1, D): the update for the CLS token alone. ``rope``: rotary tables of the 1+N
    tokens (identity for CLS) that rotate the patch keys; the CLS query is never rotated.
    """

    def __init__(self, dim: int, num_heads: int, qkv_bias: bool = True):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.q = nn.Linear(dim, dim, bias=qkv_bias)
        self.k = nn.Linear(dim, dim, bias=qkv_bias)
        self.v = nn.Linear(dim, dim, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim)

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        B, N, _ = x.shape
        return x.reshape(B, N, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, x: torch.Tensor, rope: Rotation = None) -> torch.Tensor:
        B = x.shape[0]
        q = self._heads(self.q(x[:, :1]))
        k, v = self._heads(self.k(x)), self._heads(self.v(x))
        if rope is not None:
            k = apply_rope(k, rope)
        x = F.scaled_dot_product_attention(q, k, v)
        return self.proj(x.transpose(1, 2).reshape(B, 1, -1))


class ClassAttentionBlock(nn.Module):
    """CaiT class-attention block: updates only the CLS token; the patches are read, never written.

    forward(x, cls, rope): x (B, N, D) patch tokens, cls (B, 1, D) -> new cls (B, 1, D); ``rope``:
    the rotary tables of [CLS, patches] (see `ClassAttention`). No drop-path or dropout, as CaiT.
    """

    def __init__(
        self,
        dim: int,
        num_heads: int,
        mlp_ratio: float = 4.0,
        qkv_bias: bool = True,
        layer_scale_init: float = 1e-5,
    ):
        super().__init__()
        self.norm1 = LayerNorm(dim)
        self.attn = ClassAttention(dim, num_heads, qkv_bias=qkv_bias)
        self.ls1 = LayerScale(dim, layer_scale_init) if layer_scale_init else nn.Identity()
        self.norm2 = LayerNorm(dim)
        self.mlp = Mlp(dim, int(dim * mlp_ratio), act_layer=nn.GELU)
        self.ls2 = LayerScale(dim, layer_scale_init) if layer_scale_init else nn.Identity()

    def forward(self, x: torch.Tensor, cls: torch.Tensor, rope: Rotation = None) -> torch.Tensor:
        u = self.norm1(torch.cat([cls, x], dim=1))
        cls = cls + self.ls1(self.attn(u, rope))
        return cls + self.ls2(self.mlp(self.norm2(cls)))
