import pytest
import torch

import tests.autocast_reference as plain
from vitspec.layers.specialized_functional import (
    cls_and_shared_sums,
    linear_into,
    lora_linear,
    specialized_layer_norm,
    specialized_linear,
    specialized_scale_add,
)


def leaf(*shape):
    return torch.randn(*shape, dtype=torch.float64, requires_grad=True)


@pytest.mark.parametrize('num_cls', [1, 3])
def test_layer_norm_gradcheck(num_cls):
    torch.manual_seed(0)
    args = (leaf(2, 6, 5), leaf(5), leaf(5), leaf(5), leaf(5))
    assert torch.autograd.gradcheck(lambda *a: specialized_layer_norm(*a, 1e-6, num_cls), args)


@pytest.mark.parametrize('num_cls', [1, 3])
@pytest.mark.parametrize('bias', [True, False])
def test_linear_gradcheck(num_cls, bias):
    torch.manual_seed(0)
    b, cls_b = (leaf(4), leaf(4)) if bias else (None, None)
    args = (leaf(2, 6, 5), leaf(4, 5), b, leaf(4, 5), cls_b)
    assert torch.autograd.gradcheck(lambda *a: specialized_linear(*a, num_cls), args)


@pytest.mark.parametrize('num_cls', [1, 3])
@pytest.mark.parametrize('bias', [True, False])
def test_lora_linear_gradcheck(num_cls, bias):
    torch.manual_seed(0)
    b, cls_b = (leaf(4), leaf(4)) if bias else (None, None)
    args = (leaf(2, 6, 5), leaf(4, 5), b, leaf(2, 5), leaf(4, 2), cls_b)
    assert torch.autograd.gradcheck(lambda *a: lora_linear(*a, num_cls), args)


@pytest.mark.parametrize('num_cls', [1, 3])
def test_scale_add_gradcheck_and_formula(num_cls):
    torch.manual_seed(0)
    args = (leaf(2, 6, 5), leaf(2, 6, 5), leaf(5), leaf(5))
    assert torch.autograd.gradcheck(lambda *a: specialized_scale_add(*a, num_cls), args)
    torch.testing.assert_close(
        specialized_scale_add(*args, num_cls), plain.specialized_scale_add(*args, num_cls)
    )


@pytest.mark.parametrize('num_cls', [1, 3])
@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('accumulate', [True, False])
def test_linear_into_writes_only_the_rows(num_cls, bias, accumulate):
    torch.manual_seed(0)
    x, weight = torch.randn(2, 6, 5), torch.randn(4, 5)
    b = torch.randn(4) if bias else None
    out = torch.randn(2, 6, 4)
    expected = out.clone()
    product = torch.nn.functional.linear(x[:, :num_cls], weight, b)
    expected[:, :num_cls] = expected[:, :num_cls] + product if accumulate else product
    linear_into(out.narrow(1, 0, num_cls), x[:, :num_cls], weight, b, accumulate)
    torch.testing.assert_close(out, expected)


@pytest.mark.parametrize('op', ['norm', 'linear'])
def test_backward_needs_no_copy_of_the_gradient(op):
    # an in-place write of the CLS rows under autograd (CopySlices) clones the whole gradient
    x = torch.randn(2, 6, 5, requires_grad=True)
    w, b = torch.randn(5, 5, requires_grad=True), torch.randn(5, requires_grad=True)
    if op == 'norm':
        out = specialized_layer_norm(x, w[0], b, w[1], b, 1e-6, 1)
    else:
        out = specialized_linear(x, w, b, w, b, 1)
    assert type(out.grad_fn).__name__ != 'CopySlices'
    assert out.grad_fn.next_functions[0][0].variable is x


@pytest.mark.parametrize('op', ['norm', 'scale_add'])
@pytest.mark.parametrize('num_cls', [1, 3])
@pytest.mark.parametrize('autocast', [False, True])
def test_without_autograd_the_output_is_the_recorded_one_bit_for_bit(op, num_cls, autocast):
    """No gradient recorded (inference, a frozen backbone): the same kernels without the autograd
    Function, and the same values."""
    torch.manual_seed(0)
    x, params = torch.randn(2, 6, 5), [torch.randn(5) for _ in range(4)]
    if op == 'norm':

        def call(*a):
            return specialized_layer_norm(a[0], *a[1:], 1e-6, num_cls)
    else:

        def call(*a):
            return specialized_scale_add(
                torch.randn(2, 6, 5, generator=torch.Generator().manual_seed(1)), *a, num_cls
            )

        params = params[:2]
    with torch.autocast('cpu', torch.bfloat16, enabled=autocast):
        recorded = call(x.requires_grad_(), *params)
        assert recorded.grad_fn is not None
        frozen = call(x.detach(), *params)
        with torch.no_grad():
            inferred = call(x, *params)
    assert frozen.grad_fn is None and inferred.grad_fn is None
    assert torch.equal(recorded, frozen) and torch.equal(recorded, inferred)


@pytest.mark.parametrize('num_cls', [1, 3])
def test_cls_and_shared_sums_are_the_two_row_sums(num_cls):
    t = torch.randn(3, 7, 5, dtype=torch.float64)
    for batch in (3, 2):  # a second shape: its own kept indicator
        cls, shared = cls_and_shared_sums(t[:batch], num_cls)
        torch.testing.assert_close(cls, t[:batch, :num_cls].sum((0, 1)))
        torch.testing.assert_close(shared, t[:batch, num_cls:].sum((0, 1)))


@pytest.mark.filterwarnings('error:Dynamo detected a call to a `functools.lru_cache`')
def test_cls_and_shared_sums_traced_keep_nothing_for_eager():
    """Traced in a compiled backward, the indicator is built in the graph, not read from the
    kept ones (dynamo would trace through the cache, with a warning); an eager backward of the
    same shape afterwards gets the same gradients."""
    shapes = ((2, 11, 4), (3, 4), (3,), (3, 4), (3,))  # x, weight, bias, cls_weight, cls_bias
    x, w, b, cls_w, cls_b = (torch.randn(*s, requires_grad=True) for s in shapes)

    def bias_grads(fn):
        for t in (x, w, b, cls_w, cls_b):
            t.grad = None
        fn(x, w, b, cls_w, cls_b, 1).sum().backward()
        return b.grad, cls_b.grad

    compiled = torch.compile(specialized_linear, backend='aot_eager', fullgraph=True)
    for grads in (bias_grads(compiled), bias_grads(specialized_linear)):
        torch.testing.assert_close(grads[0], torch.full((3,), 2.0 * 10))
        torch.testing.assert_close(grads[1], torch.full((3,), 2.0))


SPANS = ((0, 1), (3, 5))  # a CLS row and two query rows of 6 tokens


def test_row_groups_gradcheck():
    """Two groups apart from each other (CLS and queries): every form against autograd's
    numerical gradient, a LoRA group beside a full one included."""
    x, w, b = leaf(2, 6, 5), leaf(3, 5), leaf(3)
    row_w, row_b = [leaf(3, 5), leaf(3, 5)], [leaf(3), leaf(3)]
    lora_a, lora_b = leaf(2, 5), leaf(3, 2)

    def linear(x, w, b, w0, w1, b0, b1):
        return specialized_linear(x, w, b, [w0, w1], [b0, b1], SPANS)

    def mixed(x, w, b, a, bb, w1, b0, b1):
        return specialized_linear(x, w, b, [(a, bb), w1], [b0, b1], SPANS)

    assert torch.autograd.gradcheck(linear, (x, w, b, *row_w, *row_b))
    assert torch.autograd.gradcheck(mixed, (x, w, b, lora_a, lora_b, row_w[1], *row_b))
    norm_args = (x, leaf(5), leaf(5), leaf(5), leaf(5), leaf(5), leaf(5))

    def norm(x, w, b, w0, w1, b0, b1):
        return specialized_layer_norm(x, w, b, [w0, w1], [b0, b1], 1e-6, SPANS)

    assert torch.autograd.gradcheck(norm, norm_args)
    residual, gammas = leaf(2, 6, 5), (leaf(5), leaf(5), leaf(5))

    def scale_add(residual, x, g, g0, g1):
        return specialized_scale_add(residual, x, g, [g0, g1], SPANS)

    args = (residual, x, *gammas)
    assert torch.autograd.gradcheck(scale_add, args)
    scale = torch.stack([gammas[1], gammas[0], gammas[0], gammas[2], gammas[2], gammas[0]])
    torch.testing.assert_close(scale_add(*args), residual + x * scale)


def test_row_group_sums():
    t = torch.randn(2, 6, 3)
    first, second, others = cls_and_shared_sums(t, SPANS)
    torch.testing.assert_close(first, t[:, :1].sum((0, 1)))
    torch.testing.assert_close(second, t[:, 3:5].sum((0, 1)))
    torch.testing.assert_close(others, t[:, 1:3].sum((0, 1)) + t[:, 5:].sum((0, 1)))
