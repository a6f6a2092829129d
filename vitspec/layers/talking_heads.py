"""Talking-heads attention (Shazeer et al. 2020, as in CaiT): the heads' attention maps
mixed before and after the softmax."""

import torch
import torch.nn.functional as F
from torch import nn

from .attention import Attention
from .token_layout import TokenLayout


def _mix_heads(attn: torch.Tensor, linear: nn.Linear) -> torch.Tensor:
    """Apply a heads->heads Linear along the head axis of (B, H, N, M) attention maps."""
    return torch.einsum('gh,bhnm->bgnm', linear.weight, attn) + linear.bias[:, None, None]


class TalkingHeadAttention(Attention):
    """Talking-heads self-attention (Shazeer et al. 2020, as in CaiT), timm parameter names.

    proj_l mixes the heads' logits before the softmax, proj_w the attention weights after it.
    Both need the (B, H, N, N) map materialised, so there is no fused SDPA path: O(N^2) memory.
    Same signature and parameters as `Attention` plus proj_l / proj_w.
    """

    def __init__(self, dim: int, num_heads: int, qkv_bias: bool = True, **kwargs):
        super().__init__(dim, num_heads, qkv_bias, **kwargs)
        self.scale = self.head_dim**-0.5
        self.proj_l = nn.Linear(num_heads, num_heads)
        self.proj_w = nn.Linear(num_heads, num_heads)

    def forward(self, x: torch.Tensor, layout: TokenLayout = TokenLayout()) -> torch.Tensor:
        if self.window_size:
            raise ValueError('talking heads mix all heads over all tokens: no windowed form')
        if layout.attn_mask is not None:
            raise ValueError('talking heads (CaiT) take no attn_mask (EoMT masked attention)')
        B, N, _ = x.shape
        q, k, v = self._qkv(x, layout)
        attn = (q * self.scale) @ k.transpose(-2, -1)
        attn = _mix_heads(attn, self.proj_l).softmax(dim=-1)
        attn = F.dropout(_mix_heads(attn, self.proj_w), self.attn_drop, self.training)
        return self.proj_drop(self.proj((attn @ v).transpose(1, 2).reshape(B, N, -1)))
