"""EoMT's upscaling block (arXiv 2503.19108, tue-mps/eomt models/scale_block.py): doubles the
resolution of a feature map at constant width."""

import torch
from timm.layers import LayerNorm2d
from torch import nn


class ScaleBlock(nn.Module):
    """2x2 stride-2 transposed conv, GELU, depthwise 3x3 conv (no bias), channel LayerNorm
    (timm's LayerNorm2d, eps 1e-6); upstream's parameter names (conv1, conv2, norm)."""

    def __init__(self, dim: int):
        super().__init__()
        self.conv1 = nn.ConvTranspose2d(dim, dim, kernel_size=2, stride=2)
        self.act = nn.GELU()
        self.conv2 = nn.Conv2d(dim, dim, kernel_size=3, padding=1, groups=dim, bias=False)
        self.norm = LayerNorm2d(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(self.conv2(self.act(self.conv1(x))))
