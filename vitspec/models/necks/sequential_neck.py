"""Necks applied one after the other: detrex's DINO on ViTDet runs a ChannelMapper on the
simple feature pyramid's levels, where mmdet's detectors build exactly one neck."""

from typing import Sequence

from mmdet.registry import MODELS
from mmengine.model import BaseModule
from torch import nn

from vitspec.errors import ConfigError


@MODELS.register_module()
class SequentialNeck(BaseModule):
    """``necks[0]`` reads the backbone's outputs, each next one the previous one's."""

    def __init__(self, necks: Sequence[dict], init_cfg=None):
        super().__init__(init_cfg=init_cfg)
        if not necks:
            raise ConfigError('SequentialNeck needs at least one neck in necks=[...]')
        self.necks = nn.ModuleList(MODELS.build(cfg) for cfg in necks)

    def forward(self, inputs):
        for neck in self.necks:
            inputs = neck(inputs)
        return inputs
