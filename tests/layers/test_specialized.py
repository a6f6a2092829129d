import ast
from pathlib import Path

import pytest
import timm
import torch
import torch.nn.functional as F
from timm.layers import LayerScale, trunc_normal_
from torch import nn

import vitspec
from vitspec.layers import TokenLayout
from vitspec.layers.specialized import (
    SpecializedLayerNorm,
    SpecializedLayerScale,
    SpecializedLinear,
    init_cls_from_shared,
    is_cls_key,
    serving_group,
    shared_key,
)

B, T, D, OUT = 2, 7, 16, 24
KINDS = ['norm', 'linear', 'lora', 'scale']


def randomize(module):
    with torch.no_grad():  # distinct, non-trivial values for every parameter
        for p in module.parameters():
            p.copy_(torch.randn_like(p) * 0.5)
    return module


def make(kind, lora_rank=4):
    torch.manual_seed(0)
    return randomize(
        {
            'norm': lambda: SpecializedLayerNorm(D),
            'linear': lambda: SpecializedLinear(D, OUT),
            'lora': lambda: SpecializedLinear(D, OUT, lora_rank=lora_rank),
            'scale': lambda: SpecializedLayerScale(D, 0.1),
        }[kind]()
    )


def plain(m, prefix=''):
    """The plain torch / timm layer holding a copy of m's shared (or ``cls_``) parameters."""
    if isinstance(m, SpecializedLayerNorm):
        layer = nn.LayerNorm(D, eps=m.eps)
    elif isinstance(m, SpecializedLayerScale):
        layer = LayerScale(D)
    else:
        layer = nn.Linear(D, OUT)
    layer.load_state_dict({n: getattr(m, prefix + n).detach() for n, _ in layer.named_parameters()})
    return layer


def cls_reference(m, pat, leaves):
    """The CLS rows' plain layer (its LoRA form: the shared weight plus B @ A), its leaves added
    to ``leaves``."""
    if getattr(m, 'lora_rank', None):
        a, b, bias = (
            getattr(m, n).detach().clone().requires_grad_()
            for n in ('cls_lora_a', 'cls_lora_b', 'cls_bias')
        )
        leaves.update(cls_lora_a=a, cls_lora_b=b, cls_bias=bias)
        return lambda x: F.linear(x, pat.weight + b @ a, bias)
    cls_layer = plain(m, 'cls_')
    leaves.update({'cls_' + n: p for n, p in cls_layer.named_parameters()})
    return cls_layer


def reference(m, num_cls):
    """Separate plain layers on the two token groups: (forward, {name in m: reference leaf})."""
    pat = plain(m)
    leaves = dict(pat.named_parameters())
    cls_layer = cls_reference(m, pat, leaves)

    def forward(x):
        return torch.cat([cls_layer(x[:, :num_cls]), pat(x[:, num_cls:])], dim=1)

    return forward, leaves


@pytest.mark.parametrize('num_cls', [1, 3])
@pytest.mark.parametrize('kind', KINDS)
def test_matches_separate_layers(kind, num_cls):
    m = make(kind)
    x = torch.randn(B, T, D)
    forward, _ = reference(m, num_cls)
    with torch.no_grad():
        out = m(x, num_cls)
        torch.testing.assert_close(out, forward(x))
        # the patch rows come from the fused op on all tokens, bit for bit
        assert torch.equal(out[:, num_cls:], plain(m)(x)[:, num_cls:])
        assert torch.equal(m(x, 0), plain(m)(x))


def exact_cases():
    return [
        (kind, num_cls, mode)
        for kind in ('norm', 'lora', 'lora_at_init', 'scale')
        for num_cls in (1, 3)
        for mode in ('grad', 'no_grad', 'bf16')
    ]


def run(m, layer, x, num_cls, mode):
    with (
        torch.set_grad_enabled(mode == 'grad'),
        torch.autocast('cpu', dtype=torch.bfloat16, enabled=mode == 'bf16'),
    ):
        return m(x, num_cls), layer(x)


@pytest.mark.parametrize('kind, num_cls, mode', exact_cases())
def test_equal_parameters_give_the_plain_output_exactly(kind, num_cls, mode):
    if kind == 'lora_at_init':
        torch.manual_seed(0)
        m = SpecializedLinear(D, OUT, lora_rank=4)
    else:
        m = make(kind)
        init_cls_from_shared(m)
    if kind.startswith('lora'):
        assert not m.cls_lora_b.any() and m.cls_lora_a.abs().min() > 0
    out, expected = run(m, plain(m), torch.randn(B, T, D), num_cls, mode)
    assert out.dtype == expected.dtype
    assert torch.equal(out, expected)


@pytest.mark.parametrize('mode', ['grad', 'no_grad', 'bf16'])
def test_equal_parameters_full_linear(mode):
    # a separate GEMM on the CLS rows may round differently from the all-token GEMM (see the
    # SpecializedLinear docstring): only the patch rows are bitwise equal
    m = make('linear')
    init_cls_from_shared(m)
    out, expected = run(m, plain(m), torch.randn(B, T, D), 1, mode)
    assert out.dtype == expected.dtype
    assert torch.equal(out[:, 1:], expected[:, 1:])
    torch.testing.assert_close(out, expected)


@pytest.mark.parametrize('num_cls', [1, 3])
@pytest.mark.parametrize('kind', KINDS)
def test_gradients_match_separate_layers(kind, num_cls):
    m = make(kind)  # LoRA with B != 0, so that every factor gets a gradient
    forward, leaves = reference(m, num_cls)
    x = torch.randn(B, T, D, requires_grad=True)
    x_ref = x.detach().clone().requires_grad_()
    grad_out = torch.randn(B, T, OUT if kind in ('linear', 'lora') else D)
    (m(x, num_cls) * grad_out).sum().backward()
    (forward(x_ref) * grad_out).sum().backward()
    torch.testing.assert_close(x.grad, x_ref.grad)
    assert set(leaves) == {n for n, _ in m.named_parameters()}
    for name, p in m.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name
        torch.testing.assert_close(p.grad, leaves[name].grad, msg=name)


@pytest.mark.parametrize('kind', KINDS)
def test_bf16_autocast_backward(kind):
    m = make(kind)
    x = torch.randn(B, T, D, requires_grad=True)
    with torch.autocast('cpu', dtype=torch.bfloat16):
        out = m(x, 1)
    out.float().square().sum().backward()
    expected = m(x.detach(), 1).detach()
    torch.testing.assert_close(out.float(), expected, atol=0.1, rtol=0.05)
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in m.parameters())


def cls_params(m):
    return sum(p.numel() for n, p in m.named_parameters() if n.startswith('cls_'))


def test_lora_parameter_overhead_at_vit_b():
    dim = 768
    with torch.device('meta'):
        vit_b = timm.create_model('vit_base_patch16_224', num_classes=0)
        lora8, lora64 = (SpecializedLinear(dim, 3 * dim, lora_rank=r) for r in (8, 64))
        full = SpecializedLinear(dim, 3 * dim)
        norm, scale = SpecializedLayerNorm(dim), SpecializedLayerScale(dim, 1e-5)
    base = sum(p.numel() for p in vit_b.parameters())
    assert round(base / 1e6) == 86
    # r (in + out) for the factors, plus the full CLS bias
    assert cls_params(lora8) == 8 * (dim + 3 * dim) + 3 * dim == 26880
    # rank 8 on qkv of the first 4 of 12 blocks: 0.125 %; rank 64 still under 1 %
    assert 4 * cls_params(lora8) / base < 0.0013
    assert 4 * cls_params(lora64) / base < 0.01
    # with norm1, norm2, ls1, ls2 of all 12 blocks and the final norm: 0.19 %
    total = 4 * cls_params(lora8) + 25 * cls_params(norm) + 24 * cls_params(scale)
    assert total / base < 0.002
    # full copies instead: 4 * (3 D^2 + 3 D) = +7.09 M = 8.3 %
    assert round(4 * cls_params(full) / 1e6, 2) == 7.09
    assert round(100 * 4 * cls_params(full) / base, 1) == 8.3


def test_shared_key():
    assert shared_key('blocks.0.norm1.cls_weight') == 'blocks.0.norm1.weight'
    assert shared_key('blocks.0.norm1.cls_bias') == 'blocks.0.norm1.bias'
    assert shared_key('blocks.3.attn.qkv.cls_weight') == 'blocks.3.attn.qkv.weight'
    assert shared_key('blocks.3.attn.qkv.cls_bias') == 'blocks.3.attn.qkv.bias'
    assert shared_key('blocks.11.ls2.cls_gamma') == 'blocks.11.ls2.gamma'
    assert shared_key('norm.cls_weight') == 'norm.weight'
    assert shared_key('cls_gamma') == 'gamma'
    assert shared_key('blocks.0.attn.qkv.cls_lora_a') is None
    assert shared_key('blocks.0.attn.qkv.cls_lora_b') is None
    for key in ('cls_token', 'blocks.0.norm1.weight', 'blocks.0.attn.qkv.bias'):
        assert not is_cls_key(key)
        with pytest.raises(ValueError, match='not a CLS-copy key'):
            shared_key(key)


def test_plain_checkpoint_fills_the_shared_copies():
    spec = nn.ModuleDict(
        dict(
            norm1=SpecializedLayerNorm(D),
            qkv=SpecializedLinear(D, OUT),
            proj=SpecializedLinear(D, OUT, lora_rank=2),
            ls1=SpecializedLayerScale(D, 0.1),
        )
    )
    ref = randomize(
        nn.ModuleDict(
            dict(
                norm1=nn.LayerNorm(D, eps=1e-6),
                qkv=nn.Linear(D, OUT),
                proj=nn.Linear(D, OUT),
                ls1=LayerScale(D, 0.1),
            )
        )
    )
    ckpt = ref.state_dict()
    missing, unexpected = spec.load_state_dict(ckpt, strict=False)
    assert unexpected == []
    assert sorted(missing) == sorted(k for k in spec.state_dict() if is_cls_key(k))
    assert {k for k in missing if shared_key(k) is None} == {'proj.cls_lora_a', 'proj.cls_lora_b'}
    spec.load_state_dict({k: ckpt[shared_key(k)] for k in missing if shared_key(k)}, strict=False)
    by_function = {k: v.clone() for k, v in spec.state_dict().items()}
    init_cls_from_shared(spec)
    assert all(torch.equal(by_function[k], v) for k, v in spec.state_dict().items())

    x = torch.randn(B, T, D)
    with torch.no_grad():
        for name in ('norm1', 'proj', 'ls1'):
            assert torch.equal(spec[name](x, 1), ref[name](x)), name
        torch.testing.assert_close(spec['qkv'](x, 1), ref['qkv'](x))


def test_no_bias_and_repr():
    m = randomize(SpecializedLinear(D, OUT, bias=False, lora_rank=2))
    assert {n for n, _ in m.named_parameters()} == {'weight', 'cls_lora_a', 'cls_lora_b'}
    init_cls_from_shared(m)
    x = torch.randn(B, T, D)
    assert torch.equal(m(x, 1), F.linear(x, m.weight))
    assert 'lora_rank=2' in repr(m) and 'eps=1e-06' in repr(SpecializedLayerNorm(D))


@pytest.mark.parametrize('lora_rank, bias', [(None, True), (4, True), (None, False), (2, False)])
def test_linear_init_weights_is_the_vit_init_of_both_copies(lora_rank, bias):
    """Weights (LoRA: A) truncated normal, std 0.02, drawn shared copy first; biases and B zero."""
    m = randomize(SpecializedLinear(D, OUT, bias=bias, lora_rank=lora_rank))
    torch.manual_seed(3)
    m.init_weights()
    torch.manual_seed(3)
    expected = {}
    for name, p in m.named_parameters():
        if name in ('weight', 'cls_weight', 'cls_lora_a'):
            expected[name] = trunc_normal_(torch.empty_like(p), std=0.02)
        else:
            expected[name] = torch.zeros_like(p)
    assert expected.keys() == dict(m.named_parameters()).keys()
    for name, p in m.named_parameters():
        assert torch.equal(p, expected[name]), name


@pytest.mark.parametrize('kind', ['norm', 'scale'])
def test_reset_parameters_gives_the_built_values(kind):
    fresh = dict(norm=lambda: SpecializedLayerNorm(D), scale=lambda: SpecializedLayerScale(D, 0.1))
    m = make(kind)  # randomized
    m.reset_parameters()
    built = fresh[kind]()
    for (name, p), q in zip(m.named_parameters(), built.parameters(), strict=True):
        assert torch.equal(p, q), name
    plain_ref = nn.LayerNorm(D) if kind == 'norm' else LayerScale(D, 0.1)
    for name, p in plain_ref.named_parameters():
        assert torch.equal(getattr(m, name), p) and torch.equal(getattr(m, 'cls_' + name), p)


def test_inference_scale_table_equals_the_recorded_output_and_follows_the_scales():
    """Without autograd a LayerScale and its skip connection read a (tokens, D) table of its
    two scales: the values of the recorded path, built once per token count, rebuilt after a
    step."""
    m = make('scale')

    def both(x, num_cls, residual):
        recorded = m.add_to(residual, x.clone().requires_grad_(), num_cls).detach()
        with torch.no_grad():
            return m.add_to(residual, x, num_cls), recorded

    for tokens, num_cls in [(T, 1), (T, 3), (T + 4, 1)]:
        x, residual = torch.randn(B, tokens, D), torch.randn(B, tokens, D)
        torch.testing.assert_close(*both(x, num_cls, residual))
    assert len(m._tables) == 3  # one entry per (tokens, num_cls)
    x, residual = torch.randn(B, T, D), torch.randn(B, T, D)
    before = both(x, 1, residual)[0]
    with torch.no_grad():  # reused while the scales stay
        assert m.token_scale(T, 1) is m.token_scale(T, 1)
        m.cls_gamma.add_(1.0)
    after, recorded = both(x, 1, residual)
    assert not torch.equal(after[:, :1], before[:, :1])
    assert torch.equal(after[:, 1:], before[:, 1:])
    torch.testing.assert_close(after, recorded)


def test_scale_tables_beyond_the_bound_give_way_to_the_cls_row_kernels(monkeypatch):
    import vitspec.layers.specialized as specialized

    x, residual = torch.randn(B, T, D), torch.randn(B, T, D)
    with torch.no_grad():
        with_table = make('scale').add_to(residual, x, 1)
        monkeypatch.setattr(specialized, 'TABLE_MAX_ELEMENTS', T * D - 1)
        m = make('scale')
        without = m.add_to(residual, x, 1)
        assert torch.equal(m(x, 1), x * m.token_scale(T, 1))
    assert len(m._tables) == 0
    torch.testing.assert_close(without, with_table)


def class_assignments_and_row_writers(source: str) -> tuple:
    """(lines assigning an object's ``__class__``, lines naming ``slice_scatter`` or
    ``copy_sources``) of a module's source."""
    assigned, writers = [], []
    for node in ast.walk(ast.parse(source)):
        targets = getattr(node, 'targets', None) or [getattr(node, 'target', None)]
        if any(isinstance(t, ast.Attribute) and t.attr == '__class__' for t in targets):
            assigned.append(node.lineno)
        call = isinstance(node, ast.Call) and getattr(node.func, 'id', '') == 'setattr'
        if call and any(getattr(a, 'value', None) == '__class__' for a in node.args):
            assigned.append(node.lineno)
        if isinstance(node, ast.Attribute) and node.attr in ('slice_scatter', 'copy_sources'):
            writers.append(node.lineno)
    return assigned, writers


def test_rows_with_their_own_parameters_are_one_mechanism():
    """No module turns an object into another class after construction, and the specialized
    layers are the one place where rows of the token sequence get parameters of their own: no
    module writes a part's rows apart (``slice_scatter``) or lists parameter copies of its own
    (``copy_sources``)."""
    assert class_assignments_and_row_writers('m.__class__ = B\nsetattr(m, "__class__", B)') == (
        [1, 2],
        [],
    )
    assert class_assignments_and_row_writers('y = out.slice_scatter(r, 1)')[1] == [1]
    found = {}
    root = Path(vitspec.__file__).parent
    for path in sorted(root.rglob('*.py')):
        assigned, writers = class_assignments_and_row_writers(path.read_text())
        if assigned or writers:
            found[str(path.relative_to(root))] = assigned + writers
    assert found == {}


def test_a_layer_serves_any_row_group():
    """The query group, after the patches' prefix and apart from the first rows, takes its own
    parameters as the CLS group does; the plain layer becomes one that serves it."""
    torch.manual_seed(0)
    x = torch.randn(B, T, D)
    layout = TokenLayout(1, (2, 2), num_queries=2)  # CLS, 0 registers, 2 queries, 2 x 2 patches
    for plain_layer in (nn.LayerNorm(D, eps=1e-6), nn.Linear(D, OUT), LayerScale(D, 0.1)):
        m = randomize(serving_group(plain_layer, 'query'))
        assert m.groups == ('query',)
        query = plain(m, 'query_')
        with torch.no_grad():
            expected = torch.cat([plain(m)(x[:, :1]), query(x[:, 1:3]), plain(m)(x[:, 3:])], 1)
            torch.testing.assert_close(m(x, layout), expected)
            assert torch.equal(m(x, TokenLayout(1)), plain(m)(x))  # no query rows
        xg = x.clone().requires_grad_()
        m(xg, layout).square().sum().backward()
        assert all(p.grad is not None for p in m.parameters())


def three_groups(m):
    """Plain layers on CLS row 0, query rows 1-2 and the others: (forward, {name in m: leaf})."""
    pat, query = plain(m), plain(m, 'query_')
    leaves = {**dict(pat.named_parameters())}
    leaves.update({'query_' + n: p for n, p in query.named_parameters()})
    cls_layer = cls_reference(m, pat, leaves)

    def forward(x):
        return torch.cat([cls_layer(x[:, :1]), query(x[:, 1:3]), pat(x[:, 3:])], dim=1)

    return forward, leaves


@pytest.mark.parametrize('kind', KINDS)
def test_cls_and_query_groups_in_one_layer_match_separate_layers(kind):
    """Both groups at once (a LoRA CLS copy beside a full query copy included), forward and
    gradients, against plain layers on the three kinds of rows."""
    m = serving_group(make(kind), 'query')
    randomize(m)
    assert m.groups == ('cls', 'query')
    forward, leaves = three_groups(m)
    layout = TokenLayout(1, (2, 2), num_queries=2)  # CLS, 2 queries, 2 x 2 patches: T = 7
    x = torch.randn(B, T, D, requires_grad=True)
    x_ref = x.detach().clone().requires_grad_()
    out = m(x, layout)
    expected = forward(x_ref)
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-5)
    grad_out = torch.randn_like(out)
    (out * grad_out).sum().backward()
    (expected * grad_out).sum().backward()
    torch.testing.assert_close(x.grad, x_ref.grad, atol=1e-5, rtol=1e-5)
    assert leaves.keys() == dict(m.named_parameters()).keys()
    for name, p in m.named_parameters():
        torch.testing.assert_close(p.grad, leaves[name].grad, atol=1e-4, rtol=1e-4, msg=name)
    with torch.no_grad():
        torch.testing.assert_close(m(x, layout), expected, atol=1e-5, rtol=1e-5)
