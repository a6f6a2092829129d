"""Plain-DETR's box reparameterization: boxes in absolute pixels, refined by a delta of
(dx, dy) relative to the box size and log-scale (dw, dh), as R-CNN's box coder.

Read in impiga/Plain-DETR util/box_ops.py (delta2bbox, bbox2delta), copied unchanged into
facebookresearch/dinov3 dinov3/eval/detection/util/box_ops.py. mmdet's DeltaXYWHBBoxCoder
differs (its targets have no +0.1 on the size, its decode takes xyxy proposals), hence ours.
"""

import math

import torch

# log(1000 / 16): the largest |dw|, |dh| a decoded box may take (mmdet's wh_ratio_clip)
MAX_LOG_RATIO = abs(math.log(16 / 1000))


def cxcywh_to_xyxy(box: torch.Tensor) -> torch.Tensor:
    cxcy, wh = box[..., :2], box[..., 2:]
    return torch.cat([cxcy - 0.5 * wh, cxcy + 0.5 * wh], dim=-1)


def xyxy_to_cxcywh(box: torch.Tensor) -> torch.Tensor:
    xy1, xy2 = box[..., :2], box[..., 2:]
    return torch.cat([(xy1 + xy2) / 2, xy2 - xy1], dim=-1)


def decode_delta(boxes: torch.Tensor, deltas: torch.Tensor, max_shape=None) -> torch.Tensor:
    """(cx, cy, w, h) pixel boxes moved by ``deltas``: xyxy boxes, clipped to ``max_shape``
    ((valid heights, valid widths), broadcastable to the boxes) when given."""
    dxy_wh = boxes[..., 2:] * deltas[..., :2]
    dwh = deltas[..., 2:].clamp(min=-MAX_LOG_RATIO, max=MAX_LOG_RATIO)
    center = boxes[..., :2] + dxy_wh
    half = boxes[..., 2:] * dwh.exp() * 0.5
    out = torch.cat([center - half, center + half], dim=-1)
    if max_shape is not None:
        height, width = max_shape
        x = out[..., 0::2].clamp(min=0).minimum(width)
        y = out[..., 1::2].clamp(min=0).minimum(height)
        out = torch.stack([x[..., 0], y[..., 0], x[..., 1], y[..., 1]], dim=-1)
    return out


def encode_delta(boxes: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """The deltas that move (cx, cy, w, h) ``boxes`` onto ``targets`` (the same layout); every
    pair when the shapes differ ((N, 4) and (M, 4) -> (N, M, 4)), as Plain-DETR's matcher."""
    if boxes.shape != targets.shape:
        boxes, targets = boxes[:, None], targets[None]
    boxes, targets = boxes.float(), targets.float()
    size = boxes[..., 2:] + 0.1
    return torch.cat(
        [(targets[..., :2] - boxes[..., :2]) / size, torch.log(targets[..., 2:] / size)], dim=-1
    )
