"""DINOv2's linear segmentation probe: BatchNorm and a 1x1 conv on concatenated layers."""

from typing import Sequence

from mmcv.cnn import build_norm_layer
from mmseg.models.decode_heads.decode_head import BaseDecodeHead
from mmseg.registry import MODELS

from vitspec.errors import ConfigError

from .backbone_outputs import split_cls
from .banded_seg_loss import BandedSegLoss


@MODELS.register_module()
class LinearBNHead(BandedSegLoss, BaseDecodeHead):
    """The selected feature maps (``in_index``, all by default) are resized to the first one's
    size and concatenated, normalized by ``norm_cfg`` (BN / SyncBN) and classified by the base
    class's 1x1 ``conv_seg``; the logits are upsampled to the label size by the loss / the
    segmentor (the training loss a band of rows at a time, `BandedSegLoss`). Entries that are
    ``(map, cls_token)`` pairs use the map only.
    mmseg 1.x has no such head (DINOv2's BNHead is mmseg 0.x code)."""

    def __init__(
        self, in_channels: Sequence[int], in_index=None, dropout_ratio: float = 0.0, **kwargs
    ):
        if isinstance(in_channels, int):
            raise TypeError('LinearBNHead: in_channels must be a list, one entry per layer')
        in_index = list(range(len(in_channels))) if in_index is None else in_index
        super().__init__(
            in_channels=list(in_channels),
            channels=sum(in_channels),
            in_index=list(in_index),
            input_transform='resize_concat',
            dropout_ratio=dropout_ratio,
            **kwargs,
        )
        if self.norm_cfg is None:
            raise ConfigError('LinearBNHead needs norm_cfg (e.g. dict(type="SyncBN"))')
        self.bn = build_norm_layer(self.norm_cfg, self.channels)[1]

    def forward(self, inputs):
        maps = [split_cls(x)[0] for x in inputs]
        return self.cls_seg(self.bn(self._transform_inputs(maps)))
