"""DINOv2's linear depth probe: a 1x1 conv on one or several concatenated layers (+ CLS)."""

from typing import Sequence

import torch
import torch.nn.functional as F
from mmcv.cnn import build_norm_layer
from mmseg.registry import MODELS
from torch import nn

from vitspec.errors import InputShapeError

from .backbone_outputs import split_cls
from .depth_head import DepthHead


def patch_maps_with_cls(inputs: Sequence, use_cls_token: bool) -> list:
    """Backbone outputs -> NCHW maps; with ``use_cls_token`` each (map, cls) pair becomes the
    map with the CLS token broadcast to every position and concatenated along channels."""
    maps = []
    for item in inputs:
        fmap, cls = split_cls(item, cls_needed_by='use_cls_token=True' if use_cls_token else None)
        if use_cls_token:
            fmap = torch.cat([fmap, cls[:, :, None, None].expand_as(fmap)], dim=1)
        maps.append(fmap)
    return maps


@MODELS.register_module()
class LinearDepthHead(DepthHead):
    """lin.1 / lin.4 of DINOv2 (Table 11): every backbone output (one layer or four), with the
    CLS token concatenated, resized to the first one's grid and concatenated; 1x1 conv to 256
    bins (or 1 channel); bilinear upsampling x``upsample``.

    Args:
        in_channels: channels of one backbone output (the embedding width).
        num_inputs: how many backbone outputs are concatenated.
        use_cls_token: concatenate the CLS token (doubles the channels), as DINOv2 does.
        with_bn: a BatchNorm (``norm_cfg``) before the conv. Off by default: DINOv2's released
            head (dinov2/eval/depth/models/decode_heads/linear_head.py, BNHead) has its
            ``self.bn`` commented out, despite its name.
        init_cfg: None keeps PyTorch's default conv init, as DINOv2's BNHead (no init_cfg).
    """

    def __init__(
        self,
        in_channels: int,
        num_inputs: int = 1,
        use_cls_token: bool = True,
        upsample: int = 4,
        with_bn: bool = False,
        norm_cfg=dict(type='SyncBN'),
        init_cfg=None,
        **kwargs,
    ):
        super().__init__(init_cfg=init_cfg, **kwargs)
        self.num_inputs, self.use_cls_token, self.upsample = num_inputs, use_cls_token, upsample
        channels = in_channels * num_inputs * (2 if use_cls_token else 1)
        self.bn = build_norm_layer(norm_cfg, channels)[1] if with_bn else nn.Identity()
        self.conv_depth = nn.Conv2d(channels, self.out_dims, kernel_size=1)

    def logits(self, inputs: Sequence) -> torch.Tensor:
        if len(inputs) != self.num_inputs:
            raise InputShapeError(
                f'LinearDepthHead(num_inputs={self.num_inputs}) got {len(inputs)} '
                'backbone outputs: match it to the backbone out_indices'
            )
        maps = patch_maps_with_cls(inputs, self.use_cls_token)
        size = maps[0].shape[-2:]
        maps = [
            m
            if m.shape[-2:] == size
            else F.interpolate(m, size=size, mode='bilinear', align_corners=self.align_corners)
            for m in maps
        ]
        # The 1x1 conv (and BN in eval mode) is a per-pixel affine map whose weights sum to one
        # under bilinear resizing, so it commutes with it and runs on the coarse grid: DINOv2
        # upsamples first, for the same logits at 16x the cost. The bins' ReLU comes after.
        logits = self.conv_depth(self.bn(torch.cat(maps, dim=1)))
        return F.interpolate(
            logits, scale_factor=self.upsample, mode='bilinear', align_corners=self.align_corners
        )
