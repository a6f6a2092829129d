"""The custom autograd Functions under CPU autocast (bf16, fp16) give what the same computation
from plain PyTorch ops gives under the same autocast: output dtype and values, every gradient.
Tolerances: tests/autocast_reference.py (relative to each tensor's largest entry)."""

import pytest
import torch
from torch import nn

import tests.autocast_reference as plain
from tests.autocast_reference import AUTOCAST_DTYPES, RTOL, assert_close_to_scale
from vitspec.layers import LayerScale
from vitspec.layers.specialized import SpecializedLayerScale
from vitspec.layers.specialized_functional import specialized_layer_norm, specialized_linear
from vitspec.layers.token_graying import TokenGraying

NUM_CLS = 2


def leaves(*shapes, scale=1.0):
    return [(torch.randn(s) * scale).requires_grad_() for s in shapes]


def forward_backward(fn, inputs, dtype, dy):
    """fn(*inputs) under CPU autocast, backward (outside it, as a training loop does) with dy."""
    for t in inputs:
        t.grad = None
    with torch.autocast('cpu', dtype=dtype):
        out = fn(*inputs)
    out.backward(dy.to(out.dtype))
    return out.detach(), [t.grad for t in inputs]


def assert_same_as_plain(fused, reference, inputs, dtype, dy):
    out, grads = forward_backward(fused, inputs, dtype, dy)
    ref_out, ref_grads = forward_backward(reference, inputs, dtype, dy)
    assert_close_to_scale(out, ref_out, dtype, 'output')
    for i, (g, ref) in enumerate(zip(grads, ref_grads, strict=True)):
        assert_close_to_scale(g, ref, dtype, f'gradient of input {i}')
    return out, grads


@pytest.mark.parametrize('dtype', AUTOCAST_DTYPES, ids=['bf16', 'fp16'])
@pytest.mark.parametrize('x_dtype', [torch.float32, 'autocast'])
def test_specialized_layer_norm(dtype, x_dtype):
    torch.manual_seed(0)
    x = torch.randn(2, 7, 16).to(dtype if x_dtype == 'autocast' else x_dtype).requires_grad_()
    inputs = [x, *leaves(16, 16, 16, 16)]
    dy = torch.randn(2, 7, 16)

    def fused(*a):
        return specialized_layer_norm(*a, 1e-6, NUM_CLS)

    def reference(*a):
        return plain.specialized_layer_norm(*a, 1e-6, NUM_CLS)

    assert_same_as_plain(fused, reference, inputs, dtype, dy)


@pytest.mark.parametrize('dtype', AUTOCAST_DTYPES, ids=['bf16', 'fp16'])
@pytest.mark.parametrize('bias', [True, False])
def test_specialized_linear(dtype, bias):
    torch.manual_seed(0)
    x, w, cls_w = leaves((2, 7, 16), (12, 16), (12, 16), scale=0.5)
    b, cls_b = leaves(12, 12) if bias else (None, None)
    inputs = [t for t in (x, w, b, cls_w, cls_b) if t is not None]

    def call(fn):
        def f(*a):
            x, w, *rest = a
            b, cls_w, cls_b = rest if bias else (None, rest[0], None)
            return fn(x, w, b, cls_w, cls_b, NUM_CLS)

        return f

    out, _ = assert_same_as_plain(
        call(specialized_linear),
        call(plain.specialized_linear),
        inputs,
        dtype,
        torch.randn(2, 7, 12),
    )
    assert out.dtype == dtype  # autocast's linear: in the half dtype


def layer_scale(kind, gamma):
    """A LayerScale of ``kind`` (None: plain, else num_cls) over 12 channels."""
    ls = LayerScale(12, gamma) if kind is None else SpecializedLayerScale(12, gamma)
    if kind is not None:
        with torch.no_grad():
            ls.cls_gamma.mul_(3.0)  # CLS and patch scales differ
    return ls


@pytest.mark.parametrize('dtype', AUTOCAST_DTYPES, ids=['bf16', 'fp16'])
@pytest.mark.parametrize('gamma', [0.5, 1e-5, 1e-6])
@pytest.mark.parametrize('kind', [None, NUM_CLS])
def test_layer_scale_after_a_linear(dtype, gamma, kind):
    """Output in float32 as timm's ``h * gamma`` under autocast (no fp16 underflow for a gamma
    of 1e-6), gradients as autograd's for the plain ops."""
    torch.manual_seed(0)
    linear, ls = nn.Linear(16, 12), layer_scale(kind, gamma)
    x = torch.randn(2, 7, 16, requires_grad=True)
    inputs = [x, linear.weight, linear.bias, *ls.parameters()]
    num_cls = kind or 0
    cls_gamma = getattr(ls, 'cls_gamma', None)

    def ours(x, *_):
        return ls(linear(x), num_cls)

    def reference(x, *_):
        return plain.layer_scale(linear(x), ls.gamma, cls_gamma, num_cls)

    dy = torch.randn(2, 7, 12)
    out, grads = assert_same_as_plain(ours, reference, inputs, dtype, dy)
    assert out.dtype == torch.float32
    assert (out != 0).all()  # no underflow of h * gamma
    # the gamma gradients are float32 sums of dy * h: against float64, to the GEMM's rounding
    h = torch.nn.functional.linear(x.double(), linear.weight.double(), linear.bias.double())
    dy_h = dy.double() * h
    exact = [dy_h[:, num_cls:].sum((0, 1))] + ([dy_h[:, :num_cls].sum((0, 1))] if kind else [])
    for got, want in zip(grads[3:], exact, strict=True):
        assert (got != 0).all()
        assert (got.double() - want).abs().max() <= 4 * RTOL[dtype] * want.abs().max()


@pytest.mark.parametrize('dtype', AUTOCAST_DTYPES, ids=['bf16', 'fp16'])
@pytest.mark.parametrize('mode', ['dct', 'svd'])
def test_token_graying_runs_in_float32_under_autocast(dtype, mode):
    """No autograd Function: plain ops, which Token Graying runs in float32 with autocast off.
    Under autocast it is exactly the float32 computation, output in the input's dtype."""
    torch.manual_seed(0)
    graying = TokenGraying(8, mode, eps=0.7)
    x = torch.randn(2, 3, 16, 24, requires_grad=True)
    dy = torch.randn(2, 3, 16, 24)
    out, (grad,) = forward_backward(graying, [x], dtype, dy)
    x.grad = None
    ref = graying(x)
    ref.backward(dy)
    assert out.dtype == torch.float32
    assert torch.equal(out, ref.detach())
    assert torch.equal(grad, x.grad)
