"""Plain-DETR's reparameterized boxes: deltas relative to the box size, log-scale sizes clamped,
clipping to the valid image, targets with the source's +0.1 on the reference size."""

import math

import torch

from vitspec.models.plain_detr.box_coding import (
    MAX_LOG_RATIO,
    cxcywh_to_xyxy,
    decode_delta,
    encode_delta,
    xyxy_to_cxcywh,
)


def test_zero_deltas_keep_the_box_and_conversions_invert():
    box = torch.tensor([[50.0, 40.0, 20.0, 10.0]])
    xyxy = decode_delta(box, torch.zeros(1, 4))
    assert torch.equal(xyxy, torch.tensor([[40.0, 35.0, 60.0, 45.0]]))
    assert torch.equal(xyxy_to_cxcywh(cxcywh_to_xyxy(box)), box)


def test_deltas_move_by_the_box_size_and_scale_exponentially():
    box = torch.tensor([[50.0, 40.0, 20.0, 10.0]])
    out = xyxy_to_cxcywh(decode_delta(box, torch.tensor([[0.5, -1.0, math.log(2.0), 0.0]])))
    torch.testing.assert_close(out, torch.tensor([[60.0, 30.0, 40.0, 10.0]]))


def test_sizes_are_clamped_and_boxes_clipped_to_the_valid_image():
    box = torch.tensor([[[50.0, 40.0, 20.0, 10.0]]])
    huge = decode_delta(box, torch.tensor([[[0.0, 0.0, 100.0, 0.0]]]))
    assert math.isclose(huge[0, 0, 2] - huge[0, 0, 0], 20 * math.exp(MAX_LOG_RATIO), rel_tol=1e-5)
    height, width = torch.tensor([[[30]]]), torch.tensor([[[55]]])
    clipped = decode_delta(box, torch.tensor([[[0.0, 0.0, 1.0, 1.0]]]), (height, width))
    assert clipped[..., 0::2].min() >= 0 and clipped[..., 2].item() == 55
    assert clipped[..., 3].item() == 30


def test_targets_have_the_plus_point_one_and_pair_every_box_with_every_target():
    boxes = torch.tensor([[10.0, 10.0, 4.0, 4.0], [0.0, 0.0, 1.0, 1.0]])
    targets = torch.tensor([[12.0, 10.0, 8.2, 4.1], [0.0, 0.0, 1.0, 1.0], [5.0, 5.0, 2.0, 2.0]])
    pairs = encode_delta(boxes, targets)
    assert pairs.shape == (2, 3, 4)
    torch.testing.assert_close(pairs[0, 0], torch.tensor([2 / 4.1, 0.0, math.log(2.0), 0.0]))
    torch.testing.assert_close(encode_delta(boxes, targets[:2])[0], pairs[0, 0])
