"""Padding written so that the exported graph keeps it for every input size.

The model's own padding returns early when nothing is to be padded (``if not pad: return x``):
traced with a symbolic size, that test becomes a guard and the graph pads for no size but the
traced one. Here the pad is always applied, possibly of zero width.
"""

import torch
import torch.nn.functional as F


def center_pad(x: torch.Tensor, multiple: int) -> torch.Tensor:
    """Zero-pad H and W on both sides to multiples of ``multiple``, as
    `vitspec.layers.patch_embed.center_pad_to_multiple` (DINOv2's CenterPadding)."""
    pad_h, pad_w = (-x.shape[-2]) % multiple, (-x.shape[-1]) % multiple
    return F.pad(x, (pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2))


def pad_bottom_right(x: torch.Tensor, size=None, size_divisor=None, value: float = 0.0):
    """mmseg's ``stack_batch`` padding at test time: to ``size`` (h, w), or to multiples of
    ``size_divisor``, on the bottom and the right."""
    H, W = x.shape[-2:]
    if size is not None:
        pad_h, pad_w = size[0] - H, size[1] - W
    elif size_divisor:
        pad_h, pad_w = (-H) % size_divisor, (-W) % size_divisor
    else:
        return x
    return F.pad(x, (0, pad_w, 0, pad_h), value=value)
