"""vitspec's kernels for mmcv's CUDA-only ops, checked where the compiled build has no CPU kernel
to record: deformable attention against mmcv's own PyTorch form (what its module runs on CPU),
sigmoid focal loss against torchvision's and mmdet's, in float32 and under autocast."""

import subprocess
import sys

import pytest
import torch
import torchvision
from mmcv.ops.focal_loss import sigmoid_focal_loss
from mmcv.ops.multi_scale_deform_attn import (
    MultiScaleDeformableAttnFunction,
    multi_scale_deformable_attn_pytorch,
)
from mmdet.models.losses.focal_loss import py_sigmoid_focal_loss

from vitspec.mmcv_ops.kernels import missing

LEVEL_SHAPES = [
    ((16, 16), (8, 8)),
    ((13, 21), (7, 11), (4, 6)),  # non-square, odd
    ((1, 1), (3, 2)),
]


def deformable_inputs(shapes, seed, heads=4, channels=8, queries=30, points=3):
    gen = torch.Generator().manual_seed(seed)
    keys = sum(h * w for h, w in shapes)
    value = torch.randn(2, keys, heads, channels, generator=gen)
    # some locations outside [0, 1]: zero padding there
    loc = torch.rand(2, queries, heads, len(shapes), points, 2, generator=gen) * 1.2 - 0.1
    weights = torch.rand(2, queries, heads, len(shapes), points, generator=gen).softmax(-1)
    spatial = torch.tensor(shapes)
    start = torch.cat((spatial.new_zeros(1), spatial.prod(1).cumsum(0)[:-1]))
    return value, spatial, start, loc, weights


@pytest.mark.parametrize('shapes', LEVEL_SHAPES, ids=lambda s: 'x'.join(map(str, s)))
def test_deformable_attention_matches_mmcv_pytorch_form(shapes, torchvision_kernels):
    value, spatial, start, loc, weights = deformable_inputs(shapes, seed=len(shapes))
    leaves = [t.clone().requires_grad_() for t in (value, loc, weights)]
    out = MultiScaleDeformableAttnFunction.apply(
        leaves[0], spatial, start, leaves[1], leaves[2], 64
    )
    grad = torch.randn_like(out)
    out.backward(grad)

    ref_leaves = [t.clone().requires_grad_() for t in (value, loc, weights)]
    ref = multi_scale_deformable_attn_pytorch(ref_leaves[0], spatial, ref_leaves[1], ref_leaves[2])
    ref.backward(grad)

    assert out.shape == (2, 30, 4 * 8)
    torch.testing.assert_close(out, ref, rtol=0, atol=1e-6)
    for got, want in zip(leaves, ref_leaves):
        assert got.grad.abs().max() > 0
        torch.testing.assert_close(got.grad, want.grad, rtol=0, atol=1e-5)


@pytest.mark.parametrize('dtype', [torch.bfloat16, torch.float16])
def test_deformable_attention_under_autocast(dtype, torchvision_kernels):
    """Low-precision values (as autocast's projections give them) run in float32 and come back
    in their dtype, within that dtype's rounding of the float32 result. mmcv's function rounds
    the locations and weights to the value's dtype before its kernel: the reference does too."""
    value, spatial, start, loc, weights = deformable_inputs(LEVEL_SHAPES[1], seed=7)
    low = value.to(dtype).requires_grad_()
    with torch.autocast('cpu', dtype):
        out = MultiScaleDeformableAttnFunction.apply(low, spatial, start, loc, weights, 64)
    out.float().sum().backward()
    rounded = (t.to(dtype).float() for t in (low.detach(), loc, weights))
    ref = multi_scale_deformable_attn_pytorch(next(rounded), spatial, *rounded)
    assert out.dtype == dtype and low.grad.dtype == dtype
    eps = torch.finfo(dtype).eps
    torch.testing.assert_close(out.float(), ref, rtol=2 * eps, atol=2 * eps)
    assert low.grad.abs().max() > 0


def focal_inputs(seed, n=40, classes=6):
    gen = torch.Generator().manual_seed(seed)
    logits = torch.randn(n, classes, generator=gen) * 4
    target = torch.randint(0, classes + 1, (n,), generator=gen)  # classes: background
    return logits, target


@pytest.mark.parametrize('gamma,alpha', [(2.0, 0.25), (0.0, 0.5), (1.5, 0.75)])
def test_sigmoid_focal_loss_matches_torchvision_and_mmdet(gamma, alpha, torchvision_kernels):
    """In float64: mmcv's kernel takes log(1 - sigmoid(x)), which in float32 drifts from
    torchvision's log-sigmoid form by up to 5e-4 (relative) at logits around 12."""
    logits, target = focal_inputs(seed=int(gamma * 10))
    logits = logits.double()
    x = logits.clone().requires_grad_()
    loss = sigmoid_focal_loss(x, target, gamma, alpha, None, 'none')
    loss.sum().backward()

    one_hot = torch.nn.functional.one_hot(target, 7)[:, :6].double()
    y = logits.clone().requires_grad_()
    ref = torchvision.ops.sigmoid_focal_loss(y, one_hot, alpha=alpha, gamma=gamma)
    ref.sum().backward()
    torch.testing.assert_close(loss, ref, rtol=1e-9, atol=1e-12)
    torch.testing.assert_close(x.grad, y.grad, rtol=1e-9, atol=1e-12)

    mmdet = py_sigmoid_focal_loss(logits, one_hot, gamma=gamma, alpha=alpha, reduction='sum')
    torch.testing.assert_close(loss.sum(), mmdet, rtol=1e-9, atol=1e-9)


def test_sigmoid_focal_loss_class_weight_and_mean(torchvision_kernels):
    logits, target = focal_inputs(seed=3)
    logits, target = logits.double(), target.clamp(max=5)
    weight = torch.rand(6, dtype=torch.float64)
    x = logits.clone().requires_grad_()
    loss = sigmoid_focal_loss(x, target, 2.0, 0.25, weight, 'mean')
    loss.backward()
    y = logits.clone().requires_grad_()
    per_element = torchvision.ops.sigmoid_focal_loss(
        y, torch.nn.functional.one_hot(target, 6).double(), alpha=0.25, gamma=2.0
    )
    ref = (per_element * weight[target][:, None]).sum() / len(target)
    ref.backward()
    torch.testing.assert_close(loss, ref, rtol=1e-9, atol=1e-12)
    torch.testing.assert_close(x.grad, y.grad, rtol=1e-9, atol=1e-12)


def test_sigmoid_focal_loss_weight_with_background_is_refused(torchvision_kernels):
    logits, target = focal_inputs(seed=4)
    target[0] = 6
    with pytest.raises(ValueError, match='background targets'):
        sigmoid_focal_loss(logits, target, 2.0, 0.25, torch.ones(6), 'none')


def test_a_kernel_without_stand_in_raises_at_use_with_the_fix():
    import vitspec.mmcv_ops.kernels as kernels

    kernel = kernels.psamask_forward  # mmcv's op modules only check that the name exists
    with pytest.raises(missing.MissingKernelError, match=r"'psamask_forward'.*--mmcv-ops"):
        kernel(torch.zeros(1))
    with pytest.raises(AttributeError):
        kernels.__wrapped__  # noqa: B018  (dunder names stay missing)


def test_roi_align_max_mode_is_refused_with_the_fix(torchvision_kernels):
    from mmcv.ops import RoIAlign

    rois = torch.tensor([[0.0, 1, 1, 6, 6]])
    with pytest.raises(missing.MissingKernelError, match="pool_mode='max'.*--mmcv-ops"):
        RoIAlign(2, pool_mode='max')(torch.rand(1, 1, 8, 8), rois)


def test_mmdet_and_mmseg_import_without_vitspec():
    """What users of mmdet's and mmseg's own tools run: no vitspec import first."""
    code = (
        'import sys, mmdet.models, mmseg.models, mmcv.ops; '
        "assert 'vitspec' not in sys.modules; print(mmcv.ops.get_compiler_version())"
    )
    proc = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip()


def test_backward_kernels_are_the_forward_kernels_gradients(torchvision_kernels):
    """torch.autograd.gradcheck (float64) of mmcv's autograd functions on vitspec's kernels: each
    backward kernel against finite differences of its forward kernel."""
    from mmcv.ops.deform_conv import DeformConv2dFunction
    from mmcv.ops.modulated_deform_conv import ModulatedDeformConv2dFunction
    from mmcv.ops.roi_align import RoIAlignFunction

    gen = torch.Generator().manual_seed(0)

    def leaf(*shape, scale=1.0):
        return (torch.rand(*shape, generator=gen, dtype=torch.float64) * scale).requires_grad_()

    x, w = leaf(1, 4, 5, 6), leaf(4, 2, 3, 3)
    offset, mask, bias = leaf(1, 36, 5, 6, scale=0.7), leaf(1, 18, 5, 6), leaf(4)
    assert torch.autograd.gradcheck(
        lambda x, o, w: DeformConv2dFunction.apply(x, o, w, 1, 1, 1, 2, 2, False, 32),
        (x, offset, w),
    )
    assert torch.autograd.gradcheck(
        lambda x, o, m, w, b: ModulatedDeformConv2dFunction.apply(x, o, m, w, b, 1, 1, 1, 2, 2),
        (x, offset, mask, w, bias),
    )
    rois = torch.tensor([[0, 0.5, 1.2, 4.3, 3.9]], dtype=torch.float64)
    assert torch.autograd.gradcheck(
        lambda f: RoIAlignFunction.apply(f, rois, (2, 3), 1.0, 2, 'avg', True), (x,)
    )
    value, spatial, start, loc, weights = deformable_inputs(((3, 4), (2, 2)), seed=1, queries=3)
    leaves = [
        t.double().requires_grad_()
        for t in (value[:1, :, :2, :2], loc[:1, :, :2], weights[:1, :, :2])
    ]
    assert torch.autograd.gradcheck(
        lambda v, xy, a: MultiScaleDeformableAttnFunction.apply(v, spatial, start, xy, a, 64),
        leaves,
    )
