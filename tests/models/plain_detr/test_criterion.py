"""Plain-DETR's matching and set losses: the query closest to a target in class and box is
matched, an exact prediction costs no box loss, images without boxes only teach background."""

import math

import torch

from vitspec.models.plain_detr.box_coding import encode_delta
from vitspec.models.plain_detr.criterion import set_losses
from vitspec.models.plain_detr.matcher import focal_cost, hungarian_match

W = (2.0, 1.0, 2.0)


def predictions(gt_box, gt_label, num_classes=3, queries=4):
    """Queries with references near the target; query 2 predicts it exactly."""
    refs = gt_box + torch.tensor([[5.0, 0, 0, 0], [0, 6.0, 0, 0], [1.0, 1.0, 0, 0], [9, 9, 0, 0]])
    deltas = torch.zeros(queries, 4)
    deltas[2] = encode_delta(refs[2:3], gt_box[None])[0]
    boxes = refs.clone()
    boxes[2] = gt_box
    logits = torch.full((queries, num_classes), -4.0)
    logits[2, gt_label] = 4.0
    return dict(logits=logits, boxes=boxes, references=refs, deltas=deltas)


def test_focal_cost_prefers_the_confident_right_class():
    cost = focal_cost(torch.tensor([[4.0, -4.0], [-4.0, 4.0]]), torch.tensor([0]))
    assert cost[0, 0] < cost[1, 0]


def test_the_exact_query_is_matched_and_costs_no_box_loss():
    gt = torch.tensor([50.0, 40.0, 20.0, 10.0])
    pred = predictions(gt, 1)
    rows, cols = hungarian_match(pred, torch.tensor([1]), gt[None], W)
    assert rows.tolist() == [2] and cols.tolist() == [0]
    batched = {k: v[None] for k, v in pred.items()}
    losses = set_losses(batched, [torch.tensor([1])], [gt[None]], 1.0, 3, W, W)
    assert losses['loss_bbox'].item() < 1e-5 and losses['loss_giou'].item() < 1e-5
    assert losses['loss_cls'].item() > 0  # the other queries' background


def test_no_boxes_teach_background_only():
    pred = {k: v[None] for k, v in predictions(torch.tensor([5.0, 5, 4, 4]), 0).items()}
    empty = [torch.zeros(0, dtype=torch.long)]
    losses = set_losses(pred, empty, [torch.zeros(0, 4)], 1.0, 3, W, W)
    assert losses['loss_bbox'].item() == 0 == losses['loss_giou'].item()
    logits = pred['logits']  # focal loss of all-background targets, summed, times 2
    p = logits.sigmoid()
    expected = (0.75 * p**2 * -torch.log(1 - p)).sum() * 2
    assert math.isclose(losses['loss_cls'].item(), expected.item(), rel_tol=1e-4)
