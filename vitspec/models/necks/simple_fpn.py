"""ViTDet's simple feature pyramid: one single-scale ViT map to a multi-scale pyramid."""

import math
from typing import Sequence, Tuple

import torch
import torch.nn.functional as F
from mmcv.cnn import ConvModule, build_norm_layer
from mmdet.registry import MODELS
from mmengine.model import BaseModule
from timm.layers import LayerNorm2d
from torch import nn

from vitspec.errors import ConfigError

# mmcv/mmdet have no channels-first LayerNorm; timm's is an nn.LayerNorm, so the no-decay
# rule (vitspec.engine.optim.no_decay) and mmcv's norm-abbreviation rule both recognise it.
MODELS.register_module('LN2d', module=LayerNorm2d)


def resampler(channels: int, scale: float, norm_cfg: dict) -> Tuple[nn.Module, int]:
    """(module, output channels) changing the resolution by ``scale``, a power of two:
    stride-2 deconvolutions halving the channels (norm + GELU between them) to upsample,
    max-pooling to downsample, identity for 1."""
    steps = math.log2(scale)
    if steps != int(steps):
        raise ConfigError(f'SimpleFPN scale factors must be powers of two, got {scale}')
    steps = int(steps)
    if steps <= 0:
        return (nn.MaxPool2d(2**-steps, 2**-steps) if steps else nn.Identity()), channels
    layers = []
    for i in range(steps):
        if i:
            layers += [build_norm_layer(norm_cfg, channels)[1], nn.GELU()]
        layers.append(nn.ConvTranspose2d(channels, channels // 2, 2, stride=2))
        channels //= 2
    return nn.Sequential(*layers), channels


@MODELS.register_module()
class SimpleFPN(BaseModule):
    """Pyramid levels from the last backbone map, resampled by ``scale_factors`` (for a
    stride-16 ViT, (4, 2, 1, 0.5) gives strides 4, 8, 16, 32), each followed by a lateral
    1x1 and an output 3x3 conv with ``norm_cfg`` and no activation; levels beyond those are
    stride-2 max-pools (kernel 1) of the coarsest one (P6), up to ``num_outs``.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int = 256,
        scale_factors: Sequence[float] = (4.0, 2.0, 1.0, 0.5),
        num_outs: int = 5,
        norm_cfg: dict = dict(type='LN2d', eps=1e-6),
        init_cfg=None,
    ):
        super().__init__(init_cfg=init_cfg)
        if num_outs < len(scale_factors):
            raise ConfigError(f'num_outs={num_outs} < {len(scale_factors)} scale factors')
        self.num_outs = num_outs
        self.resamplers = nn.ModuleList()
        self.lateral_convs = nn.ModuleList()
        self.fpn_convs = nn.ModuleList()
        for scale in scale_factors:
            module, channels = resampler(in_channels, scale, norm_cfg)
            self.resamplers.append(module)
            self.lateral_convs.append(
                ConvModule(channels, out_channels, 1, norm_cfg=norm_cfg, act_cfg=None)
            )
            self.fpn_convs.append(
                ConvModule(
                    out_channels, out_channels, 3, padding=1, norm_cfg=norm_cfg, act_cfg=None
                )
            )

    def forward(self, inputs: Sequence[torch.Tensor]) -> Tuple[torch.Tensor, ...]:
        x = inputs[-1]
        outs = [
            fpn(lateral(resample(x)))
            for resample, lateral, fpn in zip(self.resamplers, self.lateral_convs, self.fpn_convs)
        ]
        while len(outs) < self.num_outs:
            outs.append(F.max_pool2d(outs[-1], 1, stride=2))
        return tuple(outs)
