"""Inputs mmcv's ops cannot compute on are refused by vitspec's kernels with the cause and the fix,
where the kernels underneath would read outside a tensor, fail with an unrelated message or take
the values as something else without a word."""

import math

import pytest
import torch
from mmcv.ops import nms, roi_align, sigmoid_focal_loss
from mmcv.ops.multi_scale_deform_attn import MultiScaleDeformableAttnFunction

from vitspec.mmcv_ops.kernels.errors import KernelInputError

FEATURES = torch.rand(2, 3, 8, 8)


@pytest.mark.parametrize('index', [2.0, -1.0, 0.5, math.nan])
def test_roi_align_refuses_a_batch_index_outside_the_batch(index, torchvision_kernels):
    rois = torch.tensor([[0.0, 1, 1, 6, 6], [index, 1, 1, 6, 6]])
    with pytest.raises(KernelInputError, match=r'rois\[1\] has batch index .* hold 2 images'):
        roi_align(FEATURES, rois, (2, 2), 1.0, 2, 'avg', True)


@pytest.mark.parametrize('box', [[6, 1, 1, 6], [1, 6, 6, 1], [1, 1, math.inf, 6]])
def test_roi_align_refuses_an_inverted_or_infinite_box_when_aligned(box, torchvision_kernels):
    """mmcv's CPU kernel refuses aligned boxes of negative width or height; torchvision's fails
    with 'cannot create std::vector larger than max_size()' where only one side is negative."""
    rois = torch.tensor([[1.0, *box]])
    with pytest.raises(KernelInputError, match=r'rois\[0\].*x1 <= x2 and y1 <= y2.*not \(x, y, w'):
        roi_align(FEATURES, rois, (2, 2), 1.0, 0, 'avg', True)


def test_roi_align_keeps_mmcv_s_legacy_clamp_of_inverted_boxes(torchvision_kernels):
    """Without ``aligned`` mmcv's kernels widen a box to one pixel instead: still accepted."""
    out = roi_align(FEATURES, torch.tensor([[1.0, 6, 1, 1, 6]]), (2, 2), 1.0, 0, 'avg', False)
    assert out.shape == (1, 3, 2, 2) and out.isfinite().all()


def test_deformable_attention_refuses_level_shapes_that_do_not_fit_the_value(
    torchvision_kernels,
):
    shapes = torch.tensor([[4, 4], [2, 2]])  # 20 keys
    value = torch.rand(1, 21, 2, 4)
    loc, weights = torch.rand(1, 3, 2, 2, 2, 2), torch.rand(1, 3, 2, 2, 2)
    with pytest.raises(
        KernelInputError, match=r'hold 20 keys.*the value \(1, 21, 2, 4\) has 21 keys.*running sum'
    ):
        MultiScaleDeformableAttnFunction.apply(
            value, shapes, torch.tensor([0, 16]), loc, weights, 64
        )
    with pytest.raises(KernelInputError, match=r'level_start_index is \[0, 4\]'):
        MultiScaleDeformableAttnFunction.apply(
            value[:, :20], shapes, torch.tensor([0, 4]), loc, weights, 64
        )


@pytest.mark.parametrize('bad', [-1, 5])
def test_sigmoid_focal_loss_refuses_targets_out_of_range(bad, torchvision_kernels):
    """4 classes: targets are 0-3, 4 for background; mmcv's kernel takes -1 or 5 as background."""
    target = torch.tensor([0, 3, 4, bad])
    with pytest.raises(KernelInputError, match=r"range over \[.*4 classes.*head's num_classes"):
        sigmoid_focal_loss(torch.rand(4, 4), target, 2.0, 0.25, None, 'mean')


def test_nms_refuses_scores_of_one_column(torchvision_kernels):
    boxes = torch.tensor([[0.0, 0, 4, 4], [1, 1, 5, 5]])
    with pytest.raises(KernelInputError, match=r'\(2, 1\) must be .*\(N,\).*scores\[:, 0\]'):
        nms(boxes, torch.tensor([[0.9], [0.8]]), 0.5)
