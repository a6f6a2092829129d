"""mmcv's border rule for location gradients on vitspec's kernels: a deformable convolution's
offset, or a deformable attention's sampling location, whose point lies at or beyond the border
(row <= -1 or >= height, column <= -1 or >= width) gets no gradient, as in mmcv's CPU and CUDA
kernels; torchvision's deform_conv2d and grid_sample give one at exactly -1. The forward is
theirs unchanged."""

import itertools

import pytest
import torch
import torchvision
from mmcv.ops import ModulatedDeformConv2dPack
from mmcv.ops.deform_conv import DeformConv2dFunction
from mmcv.ops.modulated_deform_conv import ModulatedDeformConv2dFunction
from mmcv.ops.multi_scale_deform_attn import (
    MultiScaleDeformableAttnFunction,
    multi_scale_deformable_attn_pytorch,
)


def test_dcn_v2_at_zero_offsets_gets_mmcv_s_recorded_gradients(torchvision_kernels):
    """mmcv's own expectations for its compiled kernels (tests/test_ops/
    test_modulated_deform_conv.py of mmcv v2.1.0): padding 1, offsets zero at the first step,
    so the first row and column of taps sample on -1. torchvision's rule gives the offset conv's
    first filter [[-7, -4], [7, 4]]."""
    dcn = ModulatedDeformConv2dPack(1, 1, kernel_size=2, padding=1, bias=False).double()
    dcn.weight.data.fill_(1.0)
    image = torch.tensor([[1.0, 2.0, 3.0]] * 3, dtype=torch.float64)[None, None]
    dcn(image.requires_grad_()).sum().backward()

    offset_filters = torch.tensor(
        [
            [[-7.0, -4.0], [0.0, 0.0]],
            [[-9.0, 7.5], [-6.0, 5.0]],
            [[-4.0, -7.0], [0.0, 0.0]],
            [[-7.5, -9.0], [-5.0, -6.0]],
            [[-7.0, -4.0], [-7.0, -4.0]],
            [[-6.0, 5.0], [-9.0, 7.5]],
            [[-4.0, -7.0], [-4.0, -7.0]],
            [[-5.0, -6.0], [-7.5, -9.0]],
        ],
        dtype=torch.float64,
    )
    offset_bias = [-3.0, -1.5, -3.0, -1.5, -3.0, -1.5, -3.0, -1.5, 4.5, 4.5, 4.5, 4.5]
    torch.testing.assert_close(dcn.conv_offset.weight.grad[:8, 0], offset_filters)
    torch.testing.assert_close(dcn.conv_offset.bias.grad, torch.tensor(offset_bias).double())
    torch.testing.assert_close(image.grad, torch.full_like(image, 2.0))


def sampled_inside(offset, height, width, kernel, padding):
    """Whether each offset's sampling point (stride 1, dilation 1) lies in (-1, height) x
    (-1, width), one point at a time."""
    inside = torch.zeros_like(offset, dtype=torch.bool)
    n, _, out_h, out_w = offset.shape
    taps = list(itertools.product(range(kernel), range(kernel)))
    for b, g, (t, (i, j)), y, x in itertools.product(
        range(n), range(offset.size(1) // (2 * len(taps))), enumerate(taps), range(out_h),
        range(out_w),
    ):  # fmt: skip
        c = 2 * (g * len(taps) + t)
        row = y - padding + i + offset[b, c, y, x].item()
        column = x - padding + j + offset[b, c + 1, y, x].item()
        inside[b, c : c + 2, y, x] = -1 < row < height and -1 < column < width
    return inside


@pytest.mark.parametrize('modulated', [False, True], ids=['v1', 'v2'])
def test_offset_gradient_stops_exactly_where_mmcv_s_does(modulated, torchvision_kernels):
    """Whole-pixel offsets put points on -1, 0, height - 1 and height, on both axes; elsewhere the
    gradients are torchvision's."""
    gen = torch.Generator().manual_seed(0)
    x = torch.rand(2, 4, 4, 5, generator=gen, dtype=torch.float64)
    weight = torch.rand(4, 2, 3, 3, generator=gen, dtype=torch.float64)
    whole = torch.randint(-2, 3, (2, 2 * 2 * 9, 4, 5), generator=gen).double()
    fraction = torch.rand(whole.shape, generator=gen, dtype=torch.float64) * 0.6
    offset = torch.where(torch.rand(whole.shape, generator=gen) < 0.5, whole, whole + fraction)
    mask = torch.rand(2, 2 * 9, 4, 5, generator=gen, dtype=torch.float64)
    grad_out = torch.randn(2, 4, 4, 5, generator=gen, dtype=torch.float64)

    ours = [t.clone().requires_grad_() for t in (x, offset, weight)]
    theirs = [t.clone().requires_grad_() for t in (x, offset, weight)]
    if modulated:
        out = ModulatedDeformConv2dFunction.apply(*ours[:2], mask, ours[2], None, 1, 1, 1, 2, 2)
    else:
        out = DeformConv2dFunction.apply(*ours, 1, 1, 1, 2, 2, False, 32)
    ref = torchvision.ops.deform_conv2d(
        theirs[0], theirs[1], theirs[2], padding=1, mask=mask if modulated else None
    )
    out.backward(grad_out)
    ref.backward(grad_out)

    inside = sampled_inside(offset, 4, 5, kernel=3, padding=1)
    assert not inside.all() and inside.any()
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(ours[1].grad, torch.where(inside, theirs[1].grad, 0.0))
    assert theirs[1].grad[~inside].abs().max() > 0.1  # where the rules differ
    for got, want in ((ours[0], theirs[0]), (ours[2], theirs[2])):
        torch.testing.assert_close(got.grad, want.grad)


def test_attention_location_gradient_stops_on_the_border(torchvision_kernels):
    """A sampling point on pixel -1 (location -0.5 / size): mmcv's kernel skips it, forward and
    backward; its PyTorch form (grid_sample) gives its location a gradient."""
    gen = torch.Generator().manual_seed(1)
    shapes = torch.tensor([[4, 4], [2, 4]])
    start = torch.tensor([0, 16])
    value = torch.randn(1, 24, 2, 3, generator=gen, dtype=torch.float64)
    loc = torch.rand(1, 5, 2, 2, 3, 2, generator=gen, dtype=torch.float64)
    loc[0, 0, :, 0, 0] = torch.tensor([-0.125, 0.5])  # x on pixel -1 of the 4-wide level
    loc[0, 1, :, 1, 1] = torch.tensor([0.5, -0.25])  # y on pixel -1 of the 2-high level
    loc[0, 2, :, 1, 2] = torch.tensor([0.5, 1.25])  # y on pixel 2, one past the bottom row
    weights = torch.rand(1, 5, 2, 2, 3, generator=gen, dtype=torch.float64)

    ours = [t.clone().requires_grad_() for t in (value, loc, weights)]
    theirs = [t.clone().requires_grad_() for t in (value, loc, weights)]
    out = MultiScaleDeformableAttnFunction.apply(ours[0], shapes, start, *ours[1:], 64)
    ref = multi_scale_deformable_attn_pytorch(theirs[0], shapes, *theirs[1:])
    grad = torch.randn(out.shape, generator=gen, dtype=torch.float64)
    out.backward(grad)
    ref.backward(grad)

    outside = torch.zeros_like(loc, dtype=torch.bool)
    outside[0, 0, :, 0, 0] = outside[0, 1, :, 1, 1] = outside[0, 2, :, 1, 2] = True
    torch.testing.assert_close(out, ref)
    # the rules differ at -1: there grid_sample's gradient along the axis on -1 is not zero
    assert theirs[1].grad[0, 0, :, 0, 0, 0].abs().min() > 0
    assert theirs[1].grad[0, 1, :, 1, 1, 1].abs().min() > 0
    torch.testing.assert_close(ours[1].grad, torch.where(outside, 0.0, theirs[1].grad))
    for got, want in ((ours[0], theirs[0]), (ours[2], theirs[2])):
        torch.testing.assert_close(got.grad, want.grad)
