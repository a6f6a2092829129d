"""Multi-head self-attention over the whole token sequence, global or in ViTDet's windows,
with relative position biases and rotary embeddings (timm parameter names)."""

import torch
import torch.nn.functional as F
from torch import nn

from vitspec.errors import ConfigError, InputShapeError

from .plain import Linear
from .rel_pos import (
    REL_POS_MODES,
    decomposed_rel_pos_bias,
    table_index,
    table_rel_pos_bias,
    table_size,
)
from .rope import apply_rope
from .token_layout import TokenLayout
from .window_attention import windowed_sdpa

WINDOW_PADDING = ('masked', 'zeros')


class Attention(nn.Module):
    """Multi-head self-attention over all tokens with fused SDPA (timm parameter names).

    ``qkv`` is built by ``qkv_layer(dim, 3 * inner, bias=qkv_bias)`` and called as
    ``qkv(x, layout)``: the plain `Linear`, or a SpecializedLinear (own weights for row groups:
    CLS, EoMT's queries). The
    attention itself is one joint attention over [CLS, registers, patches], or, with
    ``window_size``, ViTDet's local attention within windows of the patch grid (the layout's
    ``hw``; ``window_padding`` 'masked' or 'zeros' as ViTDet, see `windowed_sdpa`).

    ``rel_pos_bias`` (see `rel_pos`): 'decomposed' adds ``rel_pos_h`` / ``rel_pos_w`` made for
    ``rel_pos_size`` (the window, or the patch grid of a global block) to the patch-patch
    logits, prefix tokens get none; 'table' adds a BEiT table for the patch grid
    ``rel_pos_size`` with its CLS entries (global attention, at most one prefix token: CLS).
    Both start at zero, so a new block equals the one without.

    A layout with ``rope`` tables (see `rope`) rotates q and k of every token before the
    attention, windowed or not, so windows see the rotations of the global patch grid; prefix
    rows are the identity. Window padding of 'zeros' is not rotated (it has no grid position).

    A layout's ``attn_mask`` (bool, True = may attend; EoMT's masked attention) joins the
    global attention, combined with a relative position bias if there is one; windowed
    attention refuses it.
    """

    def __init__(
        self,
        dim: int,
        num_heads: int,
        qkv_bias: bool = True,
        head_dim: int = None,
        attn_drop: float = 0.0,
        proj_drop: float = 0.0,
        qkv_layer=Linear,
        window_size: int = 0,
        rel_pos_bias: str = None,
        rel_pos_size=None,
        window_padding: str = 'masked',
    ):
        super().__init__()
        self.window_size = window_size
        self.num_heads = num_heads
        self.head_dim = head_dim or dim // num_heads
        inner = self.num_heads * self.head_dim
        self.qkv = qkv_layer(dim, 3 * inner, bias=qkv_bias)
        self.attn_drop = attn_drop
        self.proj = nn.Linear(inner, dim)
        self.proj_drop = nn.Dropout(proj_drop)
        if window_padding not in WINDOW_PADDING:
            raise ConfigError(
                f'window_padding must be one of {WINDOW_PADDING}, got {window_padding!r}'
            )
        self.window_padding = window_padding
        self.rel_pos_bias = rel_pos_bias
        if rel_pos_bias is None:
            return
        if rel_pos_bias not in REL_POS_MODES or rel_pos_size is None:
            raise ConfigError(
                f'rel_pos_bias must be None or one of {REL_POS_MODES} with '
                f'rel_pos_size=(h, w); got {rel_pos_bias!r}, {rel_pos_size!r}'
            )
        self.rel_pos_size = tuple(rel_pos_size)
        if rel_pos_bias == 'decomposed':
            self.rel_pos_h = nn.Parameter(torch.zeros(2 * rel_pos_size[0] - 1, self.head_dim))
            self.rel_pos_w = nn.Parameter(torch.zeros(2 * rel_pos_size[1] - 1, self.head_dim))
            return
        if window_size:
            raise ConfigError("rel_pos_bias='table' (BEiT) is for global attention, not windows")
        self.relative_position_bias_table = nn.Parameter(
            torch.zeros(table_size(rel_pos_size), num_heads)
        )
        self.register_buffer('relative_position_index', table_index(rel_pos_size), persistent=False)

    def _qkv(self, x: torch.Tensor, layout: TokenLayout = TokenLayout()):
        return self._split_heads(self.qkv(x, layout))

    def _split_heads(self, qkv: torch.Tensor):
        """(B, N, 3 * inner) -> q, k, v, each (B, heads, N, head_dim)."""
        B, N, _ = qkv.shape
        qkv = qkv.reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        return qkv.unbind(0)

    def forward(self, x: torch.Tensor, layout: TokenLayout = TokenLayout()) -> torch.Tensor:
        B, N, _ = x.shape
        hw = layout.hw
        q, k, v = self._qkv(x, layout)
        if layout.rope is not None:
            q, k = apply_rope(q, layout.rope), apply_rope(k, layout.rope)
        if (self.window_size or self.rel_pos_bias) and hw is None:
            raise ValueError(
                'windowed attention and relative position bias need the patch '
                'grid: forward(x, TokenLayout(num_cls, hw=(h, w)))'
            )
        if self.window_size and layout.attn_mask is not None:
            raise ValueError(
                'windowed attention takes no attn_mask: masked attention (EoMT) needs global blocks'
            )
        if self.window_size:
            rel_pos = (self.rel_pos_h, self.rel_pos_w) if self.rel_pos_bias else None
            x = windowed_sdpa(q, k, v, hw, self.window_size, rel_pos, self._pad_kv())
        else:
            x = F.scaled_dot_product_attention(
                q,
                k,
                v,
                attn_mask=_with_mask(self._global_bias(q, hw), layout.attn_mask),
                dropout_p=self.attn_drop if self.training else 0.0,
            )
        return self.proj_drop(self.proj(x.transpose(1, 2).reshape(B, N, -1)))

    def _pad_kv(self):
        """Key and value of a zero token, (heads, head_dim) each (window_padding='zeros')."""
        if self.window_padding == 'masked':
            return None
        bias = self.qkv.bias
        if bias is None:
            bias = self.proj.weight.new_zeros(3 * self.num_heads * self.head_dim)
        _, k, v = bias.reshape(3, self.num_heads, self.head_dim)
        return k, v

    def _global_bias(self, q: torch.Tensor, hw):
        if self.rel_pos_bias is None:
            return None
        num_prefix = q.shape[2] - hw[0] * hw[1]
        if self.rel_pos_bias == 'decomposed':
            bias = decomposed_rel_pos_bias(q[:, :, num_prefix:], self.rel_pos_h, self.rel_pos_w, hw)
            return F.pad(bias, (num_prefix, 0, num_prefix, 0))  # prefix rows / columns: 0
        if tuple(hw) != self.rel_pos_size or num_prefix > 1:
            raise InputShapeError(
                f"rel_pos_bias='table' was made for a {self.rel_pos_size} patch grid with a CLS "
                f'token; got a {tuple(hw)} grid with {num_prefix} prefix tokens (use an input '
                f'of the img_size the backbone was built for, e.g. a sliding-window test)'
            )
        skip = 1 - num_prefix  # without CLS, the patch part of the index
        index = self.relative_position_index[skip:, skip:]
        return table_rel_pos_bias(self.relative_position_bias_table, index).to(q.dtype)


def _with_mask(bias, mask):
    """SDPA's attn_mask from a float bias (or None) and a bool mask (or None), (B, N, N) masks
    broadcast over the heads."""
    if mask is None:
        return bias
    if mask.dim() == 3:
        mask = mask.unsqueeze(1)
    if bias is None:
        return mask
    return torch.where(mask, bias, float('-inf'))
