"""Windowed attention over the patch grid (ViTDet): local windows, padding to a multiple.

Padding: by default padded positions are masked out as keys, so a window at the border attends
over its real tokens only. ``pad_kv=(k, v)`` instead lets them take part as ViTDet and SAM do,
which pad the normed tokens with zeros: a padded key / value is then the qkv bias. Prefix
tokens (CLS, registers) attend among themselves only: a windowed block is local by design,
and ViTDet's ViT has no prefix tokens.
"""

import torch
import torch.nn.functional as F

from .rel_pos import decomposed_rel_pos_bias


def window_partition(x: torch.Tensor, window: int):
    """(B, C, h, w) -> (B * nW, C, window * window), zero-padding h and w to multiples."""
    B, C, h, w = x.shape
    pad_h, pad_w = -h % window, -w % window
    x = F.pad(x, (0, pad_w, 0, pad_h))
    Hp, Wp = h + pad_h, w + pad_w
    x = x.reshape(B, C, Hp // window, window, Wp // window, window)
    x = x.permute(0, 2, 4, 1, 3, 5).reshape(-1, C, window * window)
    return x, (Hp, Wp)


def window_unpartition(x: torch.Tensor, window: int, padded_hw, hw, batch: int):
    """Inverse of window_partition, cropping the padding: -> (B, C, h, w)."""
    Hp, Wp = padded_hw
    C = x.shape[1]
    x = x.reshape(batch, Hp // window, Wp // window, C, window, window)
    x = x.permute(0, 3, 1, 4, 2, 5).reshape(batch, C, Hp, Wp)
    return x[:, :, : hw[0], : hw[1]]


def windowed_sdpa(q, k, v, hw, window: int, rel_pos=None, pad_kv=None):
    """SDPA of (B, heads, P + h*w, d) tensors: patches within windows, prefix among prefix.

    ``rel_pos``: (rel_pos_h, rel_pos_w) of a decomposed relative position bias over the window;
    ``pad_kv``: (heads, d) key and value of a padded position (None: padding is masked out).
    """
    B, H, N, d = q.shape
    h, w = hw
    P = N - h * w
    out_prefix = (
        F.scaled_dot_product_attention(q[:, :, :P], k[:, :, :P], v[:, :, :P]) if P else q[:, :, :0]
    )

    def windows(t):  # (B, H, h*w, d) -> (B*nW, H, ws*ws, d)
        grid = t[:, :, P:].transpose(2, 3).reshape(B, H * d, h, w)
        win, padded = window_partition(grid, window)
        return win.reshape(-1, H, d, window * window).transpose(2, 3), padded

    (qw, padded), (kw, _), (vw, _) = windows(q), windows(k), windows(v)
    mask = None
    if padded != (h, w):
        real = window_partition(q.new_ones(1, 1, h, w), window)[0]  # (nW, 1, ws*ws)
        real = real.repeat(B, 1, 1)[:, None]  # (B*nW, 1, 1, ws*ws)
        if pad_kv is None:
            mask = real.bool()
        else:
            fill = (1 - real).transpose(2, 3)  # (B*nW, 1, ws*ws, 1)
            kw = kw + fill * pad_kv[0][:, None].to(kw.dtype)
            vw = vw + fill * pad_kv[1][:, None].to(vw.dtype)
    if rel_pos is not None:
        bias = decomposed_rel_pos_bias(qw, *rel_pos, (window, window))
        mask = bias if mask is None else bias.masked_fill(~mask, float('-inf'))
    out = F.scaled_dot_product_attention(qw, kw, vw, attn_mask=mask)
    out = out.transpose(2, 3).reshape(-1, H * d, window * window)
    out = window_unpartition(out, window, padded, hw, B).reshape(B, H, d, h * w)
    return torch.cat([out_prefix, out.transpose(2, 3)], dim=2)
