"""ViT-Adapter's convolutional FFN over a token sequence that concatenates several feature maps."""

from typing import Sequence, Tuple

import torch
from torch import nn


class LevelwiseDepthwiseConv(nn.Module):
    """One 3x3 depthwise convolution applied to each map of a flattened multi-level sequence."""

    def __init__(self, dim: int):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, 3, 1, 1, bias=True, groups=dim)

    def forward(self, x: torch.Tensor, level_shapes: Sequence[Tuple[int, int]]) -> torch.Tensor:
        B, N, C = x.shape
        sizes = [h * w for h, w in level_shapes]
        if sum(sizes) != N:
            raise ValueError(f'{N} tokens do not fill the levels {list(level_shapes)}')
        levels = []
        for tokens, (h, w) in zip(x.split(sizes, dim=1), level_shapes):
            fmap = tokens.transpose(1, 2).reshape(B, C, h, w)
            levels.append(self.dwconv(fmap).flatten(2).transpose(1, 2))
        return torch.cat(levels, dim=1)


class MultiLevelConvFFN(nn.Module):
    """fc1, depthwise 3x3 conv on each level's map, GELU, fc2 (ViT-Adapter's ConvFFN,
    arXiv 2205.08534). The level shapes are given, so maps of any size work, not only the
    4:2:1 pyramid of an image divisible by 32 that upstream's fixed N // 21 split assumes."""

    def __init__(self, dim: int, hidden_dim: int):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden_dim)
        self.dwconv = LevelwiseDepthwiseConv(hidden_dim)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden_dim, dim)

    def forward(self, x: torch.Tensor, level_shapes: Sequence[Tuple[int, int]]) -> torch.Tensor:
        return self.fc2(self.act(self.dwconv(self.fc1(x), level_shapes)))
