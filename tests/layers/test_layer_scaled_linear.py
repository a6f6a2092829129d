import pytest
import timm.layers
import torch
from torch import nn

from vitspec.layers import LayerScale, NoLayerScale
from vitspec.layers.layer_scaled_linear import layer_scaled_linear
from vitspec.layers.specialized import SpecializedLayerScale


def reference(x, linear, ls, num_cls):
    """What autograd does with the unfused modules."""
    h = linear(x)
    if isinstance(ls, SpecializedLayerScale):
        return ls(h, num_cls)
    return ls(h)


def grads(fn, x, *modules):
    out = fn()
    out.backward(torch.randn_like(out, generator=torch.Generator().manual_seed(1)))
    params = [p.grad for m in modules for p in m.parameters()]  # None where unused
    result = (out.detach(), x.grad.clone(), params)
    x.grad = None
    for m in modules:
        m.zero_grad(set_to_none=True)
    return result


@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('spec_cls', [None, 0, 1, 3])  # None: the plain LayerScale
def test_values_and_gradients_match_unfused(bias, spec_cls):
    torch.manual_seed(0)
    linear = nn.Linear(12, 8, bias=bias).double()
    ls = (LayerScale(8, 0.5) if spec_cls is None else SpecializedLayerScale(8, 0.5)).double()
    with torch.no_grad():
        for p in ls.parameters():
            p.uniform_(-1, 1)  # distinct CLS and patch scales
    x = torch.randn(2, 7, 12, dtype=torch.float64, requires_grad=True)
    num_cls = spec_cls or 0
    fused = grads(lambda: ls.scale_linear(x, linear, num_cls), x, linear, ls)
    ref = grads(lambda: reference(x, linear, ls, num_cls), x, linear, ls)
    assert torch.equal(fused[0], ref[0])  # the forward is bit for bit the unfused one
    torch.testing.assert_close(fused[1], ref[1])
    for a, b in zip(fused[2], ref[2], strict=True):
        if b is None:
            assert a is None or not a.any()  # a parameter the reference leaves unused
        else:
            torch.testing.assert_close(a, b)


def test_fp32_forward_is_bitwise_timm_and_saves_no_output():
    torch.manual_seed(0)
    linear, ls = nn.Linear(16, 16), LayerScale(16, 1e-5)
    timm_ls = timm.layers.LayerScale(16, 1e-5)
    assert isinstance(ls, timm.layers.LayerScale)  # the weight-decay rules see it as timm's
    x = torch.randn(2, 50, 16, requires_grad=True)
    assert torch.equal(ls.scale_linear(x, linear), timm_ls(linear(x)))
    assert torch.equal(layer_scaled_linear(x, linear, ls.gamma), timm_ls(linear(x)))
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
        ls.scale_linear(x, linear)
    big = [t for t in saved if t.numel() >= x.numel()]
    assert len(big) == 1 and big[0] is x  # only the input, which the linear needs anyway


def test_no_layer_scale_is_the_plain_linear():
    linear = nn.Linear(4, 4)
    x = torch.randn(1, 3, 4)
    assert torch.equal(NoLayerScale().scale_linear(x, linear, 1), linear(x))
    assert torch.equal(NoLayerScale()(x), x)


def test_plain_layer_scale_ignores_num_cls():
    """A plain LayerScale has no CLS copy: every token is scaled by gamma, whatever num_cls."""
    torch.manual_seed(0)
    linear, ls = nn.Linear(4, 4), LayerScale(4, 0.5)
    x = torch.randn(1, 3, 4)
    assert torch.equal(ls.scale_linear(x, linear, 2), ls(linear(x)))
    assert torch.equal(layer_scaled_linear(x, linear, ls.gamma, None, 2), ls(linear(x)))


def test_bf16_autocast_matches_unfused():
    torch.manual_seed(0)
    linear, ls = nn.Linear(32, 32), SpecializedLayerScale(32, 0.1)
    x = torch.randn(2, 9, 32, requires_grad=True)
    with torch.autocast('cpu', dtype=torch.bfloat16):
        fused = grads(lambda: ls.scale_linear(x, linear, 1), x, linear, ls)
        ref = grads(lambda: reference(x, linear, ls, 1), x, linear, ls)
    torch.testing.assert_close(fused[0].float(), ref[0].float(), rtol=1e-2, atol=1e-2)
    for a, b in zip([fused[1], *fused[2]], [ref[1], *ref[2]], strict=True):
        assert a.dtype == b.dtype
        torch.testing.assert_close(a, b, rtol=2e-2, atol=2e-2)
