"""gpu_check's comparison of mmcv's ops on a device with CPU, run here with device='cpu' (CPU
against CPU): every line of it runs, a wrong op result is reported, and the calls are the ones an
older torch accepts."""

import sys

import mmcv.ops
import pytest
import torch

from vitspec.mmcv_ops import device_parity as oc


@pytest.fixture
def positional_only_roi_align(monkeypatch):
    """mmcv's roi_align as on torch < 2.14 (the H200 ran 2.11), where an autograd Function's
    `apply` takes no keyword arguments; torch 2.14 accepts them, which hid the bug here."""
    module = sys.modules['mmcv.ops.roi_align']
    apply = module.roi_align

    def roi_align(*args):
        return apply(*args)

    monkeypatch.setattr(module, 'roi_align', roi_align)
    monkeypatch.setattr(mmcv.ops, 'roi_align', roi_align)
    # a name bound at import (from mmcv.ops import roi_align) would bypass this stand-in
    assert not hasattr(oc, 'roi_align')


def test_ops_comparison_runs_on_cpu(positional_only_roi_align):
    checks = oc.ops_against_cpu('cpu')
    assert [c.name for c in checks] == ['nms', 'roi_align', 'ms_deform_attn']
    assert all(c.ok for c in checks), checks
    assert checks[0].detail.endswith(f'of {oc.NUM_BOXES} boxes kept')
    assert checks[1].detail == 'max difference forward 0.0e+00, backward 0.0e+00'
    assert checks[2].detail.startswith('max difference float32 0.0e+00, bfloat16 autocast')


def test_roi_align_output_and_gradient_are_real():
    """The comparison is not vacuous: RoIAlign gives 7x7 values per box and a gradient."""
    features = torch.randn(1, 2, 16, 16)
    rois = torch.tensor([[0.0, 8.0, 8.0, 64.0, 64.0]])
    out, grad = oc.roi_align_with_grad(features, rois, 'cpu')
    assert out.shape == (1, 2, 7, 7) and out.abs().sum() > 0
    assert grad.shape == features.shape and grad.abs().sum() > 0


def second_call_wrong(monkeypatch, name, corrupt):
    """Replace `name` by the real op whose second call (the device side) is corrupted."""
    real, calls = getattr(oc, name), []

    def op(*args):
        calls.append(args[-1])
        result = real(*args)
        return corrupt(result) if len(calls) == 2 else result

    monkeypatch.setattr(oc, name, op)
    return calls


def test_a_wrong_nms_result_is_a_failure(monkeypatch):
    calls = second_call_wrong(monkeypatch, 'nms_keep', lambda keep: keep[1:])
    nms_check, roi_check, _ = oc.ops_against_cpu('cpu')
    assert calls == ['cpu', 'cpu']
    assert not nms_check.ok and roi_check.ok


@pytest.mark.parametrize('side', [0, 1])  # the forward output, the gradient
def test_a_wrong_roi_align_result_is_a_failure(monkeypatch, side):
    def off(result):
        result = list(result)
        result[side] = result[side] + 2 * oc.BACKWARD_ATOL
        return tuple(result)

    second_call_wrong(monkeypatch, 'roi_align_with_grad', off)
    nms_check, roi_check, _ = oc.ops_against_cpu('cpu')
    assert nms_check.ok and not roi_check.ok
    assert 'max difference' in roi_check.detail


@pytest.mark.slow  # a Python start that imports vitspec: 10-20 s on a busy 2-core host
def test_the_child_process_compares_on_the_device_it_is_given():
    """The child gpu_check starts, for real, with --device cpu."""
    checks = oc.ops_check_isolated('cpu')
    assert [c.name for c in checks] == ['nms', 'roi_align', 'ms_deform_attn']
    assert all(c.ok for c in checks), checks


@pytest.mark.parametrize('wrong', [None, torch.bfloat16])  # the float32 or the bf16 run
def test_a_wrong_deformable_attention_result_is_a_failure(monkeypatch, wrong):
    real, calls = oc.deformable_attention, []

    def op(attn, inputs, device, dtype=None):
        calls.append(dtype)
        out = real(attn, inputs, device, dtype)
        return out + 1.0 if len(calls) > 1 and dtype is wrong else out

    monkeypatch.setattr(oc, 'deformable_attention', op)
    *_, msda = oc.ops_against_cpu('cpu')
    assert calls == [None, None, torch.bfloat16]
    assert not msda.ok and 'max difference float32' in msda.detail


def test_a_crash_in_the_op_check_is_a_failed_check_not_the_end():
    crash = [sys.executable, '-c', 'import os, signal; os.kill(os.getpid(), signal.SIGSEGV)']
    checks = oc.ops_check_isolated('cuda', crash)
    assert len(checks) == 1 and not checks[0].ok
    assert 'signal SIGSEGV' in checks[0].detail
    failing = [sys.executable, '-c', 'import sys; sys.exit("no kernel image for the device")']
    (check,) = oc.ops_check_isolated('cuda', failing)
    assert not check.ok and check.detail.endswith('exit 1: no kernel image for the device')
