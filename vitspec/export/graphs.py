"""The modules that are exported: a SpecViT alone, a segmentor (EoMT included) or a depth
estimator end to end.

Every graph takes ``image``: (B, 3, H, W) float32, RGB, pixel values 0-255 for the end-to-end
models (the backbone graph takes what the backbone takes: normalized pixels).
"""

from typing import Tuple

import torch
from torch import nn

from vitspec.errors import ConfigError
from vitspec.models import SpecViT
from vitspec.models.eomt import EoMT

from .padding import center_pad, pad_bottom_right

SEGMENTATION, DEPTH, BACKBONE = 'segmentation', 'depth', 'backbone'


class BackboneGraph(nn.Module):
    """SpecViT's forward: one (B, C, h, w) map per ``out_indices`` entry (and with
    ``output_cls_token`` the (B, C) CLS token after each), the input centre-padded to the patch
    size as SpecViT does."""

    task = BACKBONE

    def __init__(self, backbone: nn.Module):
        super().__init__()
        self.backbone = backbone

    def output_names(self) -> Tuple[str, ...]:
        names = []
        for i in self.backbone.out_indices:
            names.append(f'block{i}')
            if self.backbone.output_cls_token:
                names.append(f'block{i}_cls')
        return tuple(names)

    def forward(self, image: torch.Tensor):
        outs = self.backbone(center_pad(image, self.backbone.patch_size))
        flat = []
        for out in outs:
            flat.extend(out if isinstance(out, tuple) else (out,))
        return tuple(flat)


class _WholeImageGraph(nn.Module):
    """mmseg's whole-image test of ``model`` (an EncoderDecoder or DepthEstimator): the data
    preprocessor's channel order, normalization and test padding, ``encode_decode``, and the
    padding cropped off, so the output has the input's size."""

    def __init__(self, model: nn.Module):
        super().__init__()
        mode = (model.test_cfg or {}).get('mode', 'whole')
        if mode != 'whole':
            raise ConfigError(
                f"the config's test_cfg.mode is {mode!r}: export covers the whole-image test "
                '(one pass over the image); sliding windows are a loop over crops outside the '
                'graph (vitspec.inference). Export the whole-image model (tools/export.py '
                '--whole) and tile large images yourself'
            )
        self.model = model
        pre = model.data_preprocessor
        # the graph takes RGB; a model trained on BGR (no bgr_to_rgb) gets it flipped here
        self.flip_channels = not getattr(pre, 'channel_conversion', False)
        self.normalize = getattr(pre, '_enable_normalize', False)
        if self.normalize:
            self.register_buffer('mean', pre.mean.clone().reshape(1, -1, 1, 1), persistent=False)
            self.register_buffer('std', pre.std.clone().reshape(1, -1, 1, 1), persistent=False)
        test_cfg = getattr(pre, 'test_cfg', None) or {}
        self.pad_size = test_cfg.get('size')
        self.pad_divisor = test_cfg.get('size_divisor')
        self.pad_value = float(getattr(pre, 'pad_val', 0))
        # SpecViT centre-pads to its patch size inside; done here, always (padding.py)
        self.patch_size = model.backbone.patch_size if isinstance(model.backbone, SpecViT) else 0
        # EoMT's scores cover its (centre-padded) input, where mmseg's heads resize theirs to
        # img_shape: its image is then the centre of them
        self.scores_cover_input = isinstance(model, EoMT)

    def scores(self, image: torch.Tensor) -> torch.Tensor:
        x = image.flip(1) if self.flip_channels else image
        if self.normalize:
            x = (x - self.mean) / self.std
        H, W = x.shape[-2:]
        x = pad_bottom_right(x, self.pad_size, self.pad_divisor, self.pad_value)
        shape = tuple(x.shape[-2:])
        top = left = 0
        if self.patch_size:
            if self.scores_cover_input:
                top = (-shape[0]) % self.patch_size // 2
                left = (-shape[1]) % self.patch_size // 2
            x = center_pad(x, self.patch_size)
        metas = [dict(ori_shape=(H, W), img_shape=shape, pad_shape=shape)] * image.shape[0]
        return self.model.encode_decode(x, metas)[..., top : top + H, left : left + W]


class SegmentationGraph(_WholeImageGraph):
    """Outputs ``seg_logits`` (B, classes, H, W) and ``labels`` (B, H, W) int64; a one-channel
    (sigmoid) head's labels are its scores above the head's threshold."""

    task = SEGMENTATION

    def output_names(self) -> Tuple[str, ...]:
        return ('seg_logits', 'labels')

    def forward(self, image: torch.Tensor):
        logits = self.scores(image)
        if logits.shape[1] == 1:
            threshold = getattr(self.model.decode_head, 'threshold', None) or 0.3
            labels = (logits.sigmoid() > threshold).squeeze(1).long()
        else:
            labels = logits.argmax(dim=1)
        return logits, labels


class DepthGraph(_WholeImageGraph):
    """Outputs ``depth`` (B, 1, H, W) in the dataset's unit (metres for NYU and KITTI)."""

    task = DEPTH

    def output_names(self) -> Tuple[str, ...]:
        return ('depth',)

    def forward(self, image: torch.Tensor):
        return self.scores(image)


def graph_for(model: nn.Module) -> nn.Module:
    """The graph module of ``model``: SpecViT alone, a depth estimator or a segmentor. A
    detector is refused, naming what blocks it."""
    from mmseg.models.segmentors import DepthEstimator, EncoderDecoder

    if isinstance(model, DepthEstimator):
        return DepthGraph(model)
    if isinstance(model, EncoderDecoder):
        return SegmentationGraph(model)
    if hasattr(model, 'out_indices') and hasattr(model, 'patch_size'):
        return BackboneGraph(model)
    if hasattr(model, 'roi_head') or hasattr(model, 'rpn_head') or hasattr(model, 'bbox_head'):
        raise ConfigError(DETECTION_BLOCKED)
    raise ConfigError(
        f'{type(model).__name__}: export covers SpecViT, mmseg segmentors (EncoderDecoder) and '
        'depth estimators (DepthEstimator)'
    )


DETECTION_BLOCKED = (
    "detectors do not export yet: mmdet 3.3's two-stage test path branches on tensor values "
    "(torch.export stops at the RPN's `if not valid_mask.all():` in "
    'mmdet/models/dense_heads/rpn_head.py, tried on the demo Mask R-CNN), keeps Python lists '
    'per image, keeps as many boxes as NMS leaves (a data-dependent size) before RoI Align and '
    'the mask head, and returns InstanceData objects; exporting it means rewriting those heads '
    'with fixed-size outputs (see docs/export.md)'
)
