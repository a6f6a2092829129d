"""Plain-DETR's Hungarian matching in the reparameterized form: cost = w_cls * focal cost of
the target class + w_box * L1 between the predicted deltas and the deltas that would reach the
target from the same reference + w_giou * (-GIoU). Read in impiga/Plain-DETR models/matcher.py
(cost_bbox_type 'reparam'). mmdet's HungarianAssigner has no delta cost (and its focal cost
takes eps 1e-12, the source 1e-8), hence ours; the assignment is scipy's, as both."""

import torch
from mmdet.structures.bbox import bbox_overlaps
from scipy.optimize import linear_sum_assignment

from .box_coding import cxcywh_to_xyxy, encode_delta


def focal_cost(logits: torch.Tensor, labels: torch.Tensor, alpha=0.25, gamma=2.0) -> torch.Tensor:
    prob = logits.sigmoid()
    neg = (1 - alpha) * prob**gamma * -(1 - prob + 1e-8).log()
    pos = alpha * (1 - prob) ** gamma * -(prob + 1e-8).log()
    return (pos - neg)[:, labels]


@torch.no_grad()
def hungarian_match(pred, gt_labels, gt_boxes, weights=(2.0, 1.0, 2.0)):
    """(query indices, target indices) of one image. ``pred``: dict of (Q, ...) tensors
    logits, boxes (cx, cy, w, h pixels), references, deltas; ``gt_boxes`` (M, 4) cx, cy, w, h."""
    if gt_labels.numel() == 0:
        empty = torch.zeros(0, dtype=torch.long)
        return empty, empty
    w_cls, w_box, w_giou = weights
    cost_box = (
        (pred['deltas'][:, None].float() - encode_delta(pred['references'], gt_boxes)).abs().sum(-1)
    )
    giou = bbox_overlaps(
        cxcywh_to_xyxy(pred['boxes'].float()), cxcywh_to_xyxy(gt_boxes.float()), mode='giou'
    )
    cost = w_cls * focal_cost(pred['logits'].float(), gt_labels) + w_box * cost_box - w_giou * giou
    rows, cols = linear_sum_assignment(cost.cpu())
    return torch.as_tensor(rows, dtype=torch.long), torch.as_tensor(cols, dtype=torch.long)
