"""NMS and NMS matching as mmcv's kernels compute them, on torchvision's NMS."""

import torch
import torchvision

from .errors import KernelInputError


def score_order(scores: torch.Tensor) -> torch.Tensor:
    """The boxes' order by descending score, by the same call as mmcv's kernels: equal scores
    keep the order that call gives."""
    return scores.float().sort(0, descending=True)[1]


def nms(boxes, scores, iou_threshold, offset):
    """Indices of the kept boxes in descending score order. A box is dropped when its IoU with
    a kept box of higher score exceeds ``iou_threshold``; ``offset`` 1 is the legacy +1 box
    width. torchvision's NMS runs on the boxes already in mmcv's order (scores replaced by
    their rank), so that ties resolve as in mmcv."""
    if boxes.numel() == 0 == scores.numel():
        return boxes.new_empty(0, dtype=torch.long)
    if scores.dim() != 1 or boxes.dim() != 2 or boxes.size(1) != 4 or len(boxes) != len(scores):
        raise KernelInputError(
            f'nms: boxes {tuple(boxes.shape)} and scores {tuple(scores.shape)} must be (N, 4) '
            'and (N,), one score per box'
            + (
                f': pass scores[:, 0] (or scores.squeeze(1)) for scores {tuple(scores.shape)}'
                if scores.dim() == 2 and scores.size(1) == 1
                else ''
            )
        )
    order = score_order(scores)
    ordered = boxes.float()[order]
    if offset:
        ordered = torch.cat([ordered[:, :2], ordered[:, 2:] + offset], dim=1)
    rank = -torch.arange(len(order), device=boxes.device, dtype=torch.float32)
    return order[torchvision.ops.nms(ordered, rank, float(iou_threshold))]


def nms_match(dets, iou_threshold):
    """Groups of box indices (N, 5 with scores): each kept box, in descending score order,
    followed by the boxes it suppresses (IoU >= ``iou_threshold``), as lists of ints."""
    dets = dets.float()
    order = score_order(dets[:, 4])
    rank = torch.empty_like(order)
    rank[order] = torch.arange(len(order))
    iou = torchvision.ops.box_iou(dets[:, :4], dets[:, :4])
    suppressed = torch.zeros(len(order), dtype=torch.bool)
    matched = []
    for i in order.tolist():
        if suppressed[i]:
            continue
        hit = ~suppressed & (iou[i] >= iou_threshold) & (rank > rank[i])
        later = order[rank[hit].sort()[0]]  # suppressed boxes in score order
        suppressed[later] = True
        matched.append([i] + later.tolist())
    return matched
