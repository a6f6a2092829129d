import torch
from torch import nn


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
            raise ValueError(
                f'input size {H}x{W} is not a multiple of the patch size {p}; pad it first '
                f'(e.g. size_divisor={p} in the data preprocessor)')
        x = self.proj(x)
        return x.flatten(2).transpose(1, 2), (H // p, W // p)
