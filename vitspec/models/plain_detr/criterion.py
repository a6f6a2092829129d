"""Plain-DETR's set losses for one group of predictions: sigmoid focal classification over all
queries, L1 on the box deltas (reparameterized boxes) and GIoU on the matched ones, each summed
and divided by the number of targets (all-reduced over the ranks, at least 1). Read in
impiga/Plain-DETR models/detr.py (SetCriterion: loss_labels, loss_boxes with 'reparam') and
engine.py (train_hybrid: the one-to-many group, targets repeated k times). The focal loss is
torchvision's (the source's formula), the GIoU mmdet's bbox_overlaps."""

import torch
import torch.nn.functional as F
from mmdet.structures.bbox import bbox_overlaps
from mmengine.dist import all_reduce, get_world_size
from torchvision.ops import sigmoid_focal_loss

from .box_coding import cxcywh_to_xyxy, encode_delta
from .matcher import hungarian_match


def num_targets(gt_labels: list, device) -> float:
    n = torch.tensor([float(sum(len(g) for g in gt_labels))], device=device)
    all_reduce(n)  # a sum; no-op when not distributed
    return max(n.item() / get_world_size(), 1.0)


def set_losses(
    pred, gt_labels, gt_boxes, n_targets, num_classes, weights, match_weights, alpha=0.25
):
    """dict(cls, bbox, giou) weighted; ``pred``: dict of (B, Q, ...) tensors (logits, boxes,
    references, deltas); ``gt_labels``, ``gt_boxes``: per image, columns of the logits and
    cx, cy, w, h pixel boxes."""
    logits = pred['logits']
    target = torch.zeros_like(logits)
    batch_idx, query_idx, matched = [], [], []
    for b, (labels, boxes) in enumerate(zip(gt_labels, gt_boxes)):
        rows, cols = hungarian_match(
            {k: v[b] for k, v in pred.items()}, labels, boxes, match_weights
        )
        rows, cols = rows.to(logits.device), cols.to(logits.device)
        target[b, rows, labels[cols]] = 1.0
        batch_idx.append(torch.full_like(rows, b))
        query_idx.append(rows)
        matched.append(boxes[cols])
    w_cls, w_box, w_giou = weights
    loss_cls = (
        sigmoid_focal_loss(logits.float(), target.float(), alpha=alpha, reduction='sum') / n_targets
    )
    idx = (torch.cat(batch_idx), torch.cat(query_idx))
    gt = torch.cat(matched).float()
    deltas = pred['deltas'][idx].float()
    loss_bbox = (
        F.l1_loss(deltas, encode_delta(pred['references'][idx], gt), reduction='sum') / n_targets
    )
    giou = bbox_overlaps(
        cxcywh_to_xyxy(pred['boxes'][idx].float()), cxcywh_to_xyxy(gt), mode='giou', is_aligned=True
    )
    loss_giou = (1 - giou).sum() / n_targets
    return dict(
        loss_cls=w_cls * loss_cls, loss_bbox=w_box * loss_bbox, loss_giou=w_giou * loss_giou
    )
