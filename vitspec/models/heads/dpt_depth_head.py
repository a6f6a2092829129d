"""DPT decoder (Ranftl et al. 2021) for depth from four ViT layers, as DINOv2 evaluates it."""

from typing import Sequence

import torch
import torch.nn.functional as F
from mmseg.registry import MODELS
from torch import nn

from vitspec.errors import ConfigError, InputShapeError

from .backbone_outputs import split_cls
from .depth_head import DepthHead

READOUTS = ('ignore', 'add', 'project')


class ResidualConvUnit(nn.Module):
    """Pre-activation residual unit: x + conv(relu(conv(relu(x)))), convs without bias (DINOv2's
    PreActResidualConvUnit: ConvModule with bias=False, no norm)."""

    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)

    def forward(self, x):
        return x + self.conv2(F.relu(self.conv1(F.relu(x))))


class FusionBlock(nn.Module):
    """Adds the skip features (refined) to the coarser path, refines, upsamples x2, 1x1 conv.
    The coarsest block has no skip input, and no unit for it (DDP refuses unused parameters)."""

    def __init__(self, channels: int, with_skip: bool = True):
        super().__init__()
        self.skip_unit = ResidualConvUnit(channels) if with_skip else None
        self.unit = ResidualConvUnit(channels)
        self.project = nn.Conv2d(channels, channels, 1)

    def forward(self, x, skip=None):
        if skip is not None:
            if x.shape[-2:] != skip.shape[-2:]:  # odd grids: the stride-2 level rounds up
                # DINOv2 (FeatureFusionBlock) resizes the skip to the coarser path, not back
                skip = F.interpolate(skip, size=x.shape[-2:], mode='bilinear', align_corners=False)
            x = x + self.skip_unit(skip)
        x = F.interpolate(self.unit(x), scale_factor=2, mode='bilinear', align_corners=True)
        return self.project(x)


def resize_layer(channels: int, level: int) -> nn.Module:
    """Level 0..3 of the reassembled pyramid: x4, x2, x1, x0.5 of the patch grid."""
    if level == 0:
        return nn.ConvTranspose2d(channels, channels, kernel_size=4, stride=4)
    if level == 1:
        return nn.ConvTranspose2d(channels, channels, kernel_size=2, stride=2)
    if level == 2:
        return nn.Identity()
    return nn.Conv2d(channels, channels, kernel_size=3, stride=2, padding=1)


@MODELS.register_module()
class DPTDepthHead(DepthHead):
    """Reassemble (readout, 1x1 projection, resampling to 4 scales), 3x3 convs to ``channels``,
    four fusion blocks from coarse to fine, a 3x3 conv + ReLU, and a conv head with a final x2
    upsampling: the layout of DINOv2's DPTHead (dinov2/eval/depth/models/decode_heads/
    dpt_head.py) with norm_cfg=None.

    Args:
        embed_dims: backbone width D; the head takes 4 (map, cls) backbone outputs.
        post_process_channels: widths of the 4 levels; DINOv2 uses [D/8, D/4, D/2, D].
        readout_type: what the CLS token does: 'project' (Linear(2D, D) + GELU on
            [token, cls]), 'add' or 'ignore'.
    """

    def __init__(
        self,
        embed_dims: int,
        post_process_channels: Sequence[int] = None,
        channels: int = 256,
        readout_type: str = 'project',
        **kwargs,
    ):
        kwargs.setdefault('init_cfg', dict(type='Kaiming', layer='Conv2d'))
        super().__init__(**kwargs)
        if readout_type not in READOUTS:
            raise ConfigError(f'readout_type {readout_type!r} is not one of {READOUTS}')
        post = post_process_channels or [
            embed_dims // 8,
            embed_dims // 4,
            embed_dims // 2,
            embed_dims,
        ]
        if len(post) != 4:
            raise ConfigError(f'DPTDepthHead needs 4 post_process_channels, got {post}')
        self.readout_type = readout_type
        self.readouts = (
            nn.ModuleList(
                nn.Sequential(nn.Linear(2 * embed_dims, embed_dims), nn.GELU()) for _ in range(4)
            )
            if readout_type == 'project'
            else None
        )
        self.projects = nn.ModuleList(nn.Conv2d(embed_dims, c, 1) for c in post)
        self.resizes = nn.ModuleList(resize_layer(c, i) for i, c in enumerate(post))
        self.to_channels = nn.ModuleList(
            nn.Conv2d(c, channels, 3, padding=1, bias=False) for c in post
        )
        self.fusions = nn.ModuleList(FusionBlock(channels, with_skip=i < 3) for i in range(4))
        self.project = nn.Sequential(nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU())
        self.head = nn.Sequential(
            nn.Conv2d(channels, channels // 2, 3, padding=1),
            nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True),
            nn.Conv2d(channels // 2, 32, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(32, self.out_dims, 1),
        )

    def _readout(self, level: int, item) -> torch.Tensor:
        if self.readout_type == 'ignore':
            return split_cls(item)[0]
        fmap, cls = split_cls(item, cls_needed_by=f'readout_type={self.readout_type!r}')
        if self.readout_type == 'add':
            return fmap + cls[:, :, None, None]
        B, C, H, W = fmap.shape
        tokens = fmap.flatten(2).transpose(1, 2)
        tokens = torch.cat([tokens, cls[:, None].expand(-1, H * W, -1)], dim=2)
        return self.readouts[level](tokens).transpose(1, 2).reshape(B, C, H, W)

    def logits(self, inputs: Sequence) -> torch.Tensor:
        if len(inputs) != 4:
            raise InputShapeError(f'DPTDepthHead takes 4 backbone outputs, got {len(inputs)}')
        levels = [
            conv(resize(project(self._readout(i, item))))
            for i, (item, project, resize, conv) in enumerate(
                zip(inputs, self.projects, self.resizes, self.to_channels)
            )
        ]
        x = self.fusions[3](levels[3])
        for level in (2, 1, 0):
            x = self.fusions[level](x, levels[level])
        return self.head(self.project(x))
