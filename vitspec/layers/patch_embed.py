"""Patch embedding: an image into non-overlapping patch tokens, and DINOv2's centred zero
padding to a multiple of the patch size."""

import torch
import torch.nn.functional as F
from torch import nn

from vitspec.errors import InputShapeError


def center_pad_to_multiple(x: torch.Tensor, multiple: int) -> torch.Tensor:
    """Zero-pad an NCHW image on both sides so that H and W are multiples (DINOv2's way)."""
    pad_h, pad_w = -x.shape[-2] % multiple, -x.shape[-1] % multiple
    if not (pad_h or pad_w):
        return x
    return F.pad(x, (pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2))


class PatchEmbed(nn.Module):
    """Non-overlapping patches -> tokens. Returns (B, N, D) and the token grid (h, w)."""

    def __init__(self, patch_size: int = 16, in_channels: int = 3, embed_dims: int = 768):
        super().__init__()
        self.patch_size = patch_size
        self.proj = nn.Conv2d(in_channels, embed_dims, kernel_size=patch_size, stride=patch_size)

    def forward(self, x: torch.Tensor):
        H, W = x.shape[-2:]
        p = self.patch_size
        if H % p or W % p:
            raise InputShapeError(
                f'input size {H}x{W} is not a multiple of the patch size {p}; pad it first '
                f'(e.g. size_divisor={p} in the data preprocessor)'
            )
        x = self.proj(x)
        return x.flatten(2).transpose(1, 2), (H // p, W // p)
