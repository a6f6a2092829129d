"""vitspec's kernels, run through mmcv's own Python ops, give what mmcv's compiled CPU ops gave on
the same inputs: compiled_ops_reference.pt, written once by tools/record_mmcv_references.py in an
environment with the compiled ops. Where the compiled ops are installed, a slow test compares
both live on fresh inputs."""

from pathlib import Path

import pytest
import torch
from mmcv.ops import (
    DeformConv2d,
    ModulatedDeformConv2d,
    RoIAlign,
    batched_nms,
    nms,
    nms_match,
)

from vitspec.mmcv_ops.installed import COMPILED, ops_kernels

REFERENCE = Path(__file__).with_name('compiled_ops_reference.pt')
CASES = torch.load(REFERENCE, weights_only=True)['cases']
FORWARD_ATOL = 1e-5
BACKWARD_ATOL = 1e-4


def cases(prefix, but=None):
    names = sorted(n for n in CASES if n.startswith(prefix) and not (but and n.startswith(but)))
    assert names, prefix
    return pytest.mark.parametrize('name', names)


@cases('nms_', but='nms_match')
def test_nms_keeps_the_same_boxes_in_the_same_order(name, torchvision_kernels):
    case = CASES[name]
    dets, keep = nms(case['boxes'], case['scores'], case['iou_threshold'], case['offset'])
    assert torch.equal(keep, case['keep'])
    torch.testing.assert_close(dets[:, 4], case['scores'][keep])


def test_the_recorded_nms_cases_suppress_and_sit_at_the_edge():
    """Every case but one drops boxes; the boxes at IoU exactly 0.5 survive a 0.5 threshold (mmcv
    drops above it) and not one just below."""
    for name in sorted(n for n in CASES if n.startswith('nms_') and 'match' not in n):
        kept, boxes = len(CASES[name]['keep']), len(CASES[name]['boxes'])
        assert 0 < kept < boxes or name == 'nms_edge_iou0.5000000', name
    assert len(CASES['nms_edge_iou0.5000000']['keep']) == 5
    assert len(CASES['nms_edge_iou0.4999990']['keep']) < 5


@pytest.mark.parametrize('dtype', [torch.bfloat16, torch.float16])
def test_nms_under_autocast_keeps_what_the_compiled_op_keeps(dtype, torchvision_kernels):
    """Boxes and scores in low precision, as autocast's convolutions give them: the same boxes
    as the compiled op on those values in float32 (the edge case is exact in both dtypes)."""
    case = CASES['nms_edge_iou0.5000000']
    with torch.autocast('cpu', dtype):
        _, keep = nms(case['boxes'].to(dtype), case['scores'].to(dtype), 0.5)
    assert torch.equal(keep, case['keep'])


def test_batched_nms(torchvision_kernels):
    case = CASES['batched_nms']
    dets, keep = batched_nms(
        case['boxes'], case['scores'], case['idxs'], dict(iou_threshold=case['iou_threshold'])
    )
    assert torch.equal(keep, case['keep'])
    torch.testing.assert_close(dets, case['dets'])


@cases('nms_match_')
def test_nms_match_groups(name, torchvision_kernels):
    case = CASES[name]
    groups = nms_match(case['dets'], case['iou_threshold'])
    assert [len(g) for g in groups] == case['group_sizes'].tolist()
    assert torch.equal(torch.cat(groups), case['groups'])
    assert max(len(g) for g in groups) > 1


def roi_align(case, features):
    layer = RoIAlign(
        tuple(case['output_size']),
        case['spatial_scale'],
        case['sampling_ratio'],
        aligned=case['aligned'],
    )
    x = features.clone().requires_grad_()
    out = layer(x, case['rois'])
    out.backward(case['grad_output'].to(out.dtype))
    return out, x.grad


@cases('roi_align_aligned')
def test_roi_align_forward_and_backward(name, torchvision_kernels):
    case = CASES[name]
    out, grad = roi_align(case, case['features'])
    torch.testing.assert_close(out, case['output'], rtol=0, atol=FORWARD_ATOL)
    torch.testing.assert_close(grad, case['grad_features'], rtol=0, atol=BACKWARD_ATOL)
    assert case['output'].abs().max() > 0 and case['grad_features'].abs().max() > 0


@pytest.mark.parametrize('dtype', [torch.bfloat16, torch.float16])
def test_roi_align_under_autocast(dtype, torchvision_kernels):
    """Features in low precision (exactly the recorded float32 values): the output and gradient
    come back in that dtype, the compiled float32 result rounded."""
    case = CASES['roi_align_bf16_inputs']
    with torch.autocast('cpu', dtype):
        out, grad = roi_align(case, case['features'].to(dtype))
    assert out.dtype == grad.dtype == dtype
    eps = torch.finfo(dtype).eps
    scale = case['output'].abs().max()
    torch.testing.assert_close(out.float(), case['output'], rtol=eps, atol=eps * scale)
    grad_scale = case['grad_features'].abs().max()
    torch.testing.assert_close(
        grad.float(), case['grad_features'], rtol=4 * eps, atol=4 * eps * grad_scale
    )


@pytest.mark.parametrize('modulated', [False, True], ids=['dcn', 'dcnv2'])
def test_deformable_convolution_forward_and_backward(modulated, torchvision_kernels):
    case = CASES['modulated_deform_conv' if modulated else 'deform_conv']
    cls = ModulatedDeformConv2d if modulated else DeformConv2d
    conv = cls(4, 6, 3, stride=1, padding=1, dilation=1, groups=2, deform_groups=2)
    with torch.no_grad():
        conv.weight.copy_(case['weight'])
        if modulated:
            conv.bias.copy_(case['bias'])
    names = ('input', 'offset', 'mask') if modulated else ('input', 'offset')
    inputs = [case[n].clone().requires_grad_() for n in names]
    out = conv(*inputs)
    out.backward(case['grad_output'])
    torch.testing.assert_close(out, case['output'], rtol=1e-5, atol=1e-4)
    for name, x in zip(names, inputs):
        torch.testing.assert_close(x.grad, case[f'grad_{name}'], rtol=1e-4, atol=1e-3)
    torch.testing.assert_close(conv.weight.grad, case['grad_weight'], rtol=1e-4, atol=1e-3)
    if modulated:
        torch.testing.assert_close(conv.bias.grad, case['grad_bias'], rtol=1e-4, atol=1e-3)


@pytest.mark.slow
@pytest.mark.skipif(ops_kernels() != COMPILED, reason="mmcv's compiled ops are not installed")
def test_live_against_the_installed_compiled_ops(monkeypatch):
    """Fresh inputs through both kernel sets in one process: the recording tool's cases, re-drawn
    with another seed, compared as above."""
    import sys

    from tools import record_mmcv_references as record
    from vitspec.mmcv_ops import kernels
    from vitspec.mmcv_ops.kernel_sets import OP_MODULES

    gen = torch.Generator().manual_seed(1)
    compiled = {}
    for make in (record.nms_cases, record.roi_align_cases, record.deform_conv_cases):
        compiled.update(make(gen))
    for name in OP_MODULES:
        monkeypatch.setattr(sys.modules[f'mmcv.ops.{name}'], 'ext_module', kernels)
    for name, case in compiled.items():
        if name.startswith('nms'):
            _, keep = nms(case['boxes'], case['scores'], case['iou_threshold'], case['offset'])
            assert torch.equal(keep, case['keep']), name
        elif name.startswith('roi_align'):
            out, grad = roi_align(case, case['features'])
            torch.testing.assert_close(out, case['output'], rtol=0, atol=FORWARD_ATOL)
            torch.testing.assert_close(grad, case['grad_features'], rtol=0, atol=BACKWARD_ATOL)
