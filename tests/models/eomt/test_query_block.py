from functools import partial

import pytest
import torch
import torch.nn.functional as F

from vitspec.layers import (
    Attention,
    Block,
    LayerNorm,
    LayerScale,
    Mlp,
    SpecializedLayerNorm,
    SpecializedLayerScale,
    SpecializedLinear,
    TokenLayout,
)
from vitspec.models.eomt.query_block import (
    QueryAttention,
    QueryBlock,
    attach_query_parts,
    is_query_key,
    query_shared_key,
    with_query_rows,
)

DIM, HEADS, NUM_CLS, NUM_REG, NUM_Q, HW = 16, 2, 1, 2, 3, (2, 3)


def cls_specialized_block():
    """A block with CLS specialization of norms, qkv and LayerScales (2602.08626)."""
    return Block(
        DIM,
        partial(Attention, num_heads=HEADS, qkv_layer=SpecializedLinear),
        partial(Mlp, hidden=2 * DIM),
        norm_layer=SpecializedLayerNorm,
        ls_layer=partial(SpecializedLayerScale, init_value=0.5),
    )


def randomized(block):
    torch.manual_seed(0)
    with torch.no_grad():
        for p in block.parameters():
            p.copy_(torch.randn_like(p) * 0.3 + (1.0 if p.dim() == 1 else 0.0))
    return block


def reference(block, x):
    """The block written with explicit slices and torch ops: CLS rows take the cls_*
    parameters, query rows the query copies, the other rows the shared ones; one softmax
    attention over all tokens; shared proj and MLP."""
    B, N, C = x.shape
    q0 = N - HW[0] * HW[1] - NUM_Q
    groups = [(0, NUM_CLS, 'cls'), (NUM_CLS, q0, 'shared'), (q0, q0 + NUM_Q, 'query')]
    groups.append((q0 + NUM_Q, N, 'shared'))

    def per_group(x, params):
        return torch.cat([params[kind](x[:, a:b]) for a, b, kind in groups], dim=1)

    def norm(shared, query):
        return dict(
            shared=lambda t: F.layer_norm(t, (C,), shared.weight, shared.bias, 1e-6),
            cls=lambda t: F.layer_norm(t, (C,), shared.cls_weight, shared.cls_bias, 1e-6),
            query=lambda t: F.layer_norm(t, (C,), query.weight, query.bias, 1e-6),
        )

    def scale(shared, query):
        return dict(
            shared=lambda t: t * shared.gamma,
            cls=lambda t: t * shared.cls_gamma,
            query=lambda t: t * query.gamma,
        )

    qkv_layer, query_qkv = block.attn.qkv, block.attn.query_qkv
    qkv = per_group(
        per_group(x, norm(block.norm1, block.query_norm1)),
        dict(
            shared=lambda t: t @ qkv_layer.weight.T + qkv_layer.bias,
            cls=lambda t: t @ qkv_layer.cls_weight.T + qkv_layer.cls_bias,
            query=lambda t: t @ query_qkv.weight.T + query_qkv.bias,
        ),
    )
    q, k, v = qkv.reshape(B, N, 3, HEADS, C // HEADS).permute(2, 0, 3, 1, 4)
    attn = ((q @ k.transpose(-2, -1)) * (C // HEADS) ** -0.5).softmax(-1)
    y = (attn @ v).transpose(1, 2).reshape(B, N, C) @ block.attn.proj.weight.T
    y = y + block.attn.proj.bias
    x = x + per_group(y, scale(block.ls1, block.query_ls1))
    h = per_group(x, norm(block.norm2, block.query_norm2))
    h = F.gelu(h @ block.mlp.fc1.weight.T + block.mlp.fc1.bias)
    h = h @ block.mlp.fc2.weight.T + block.mlp.fc2.bias
    return x + per_group(h, scale(block.ls2, block.query_ls2))


def layout():
    return TokenLayout(NUM_CLS, HW, num_queries=NUM_Q)


def relative_error(a, b):
    return ((a.float() - b.float()).norm() / b.float().norm()).item()


@pytest.mark.parametrize('mode', ['fp32', 'bf16'])
def test_query_specialized_block_matches_the_plain_op_reference(mode):
    """fp32: to float tolerance; bf16 autocast: against the fp32 reference, to bf16's
    relative error, forward and backward."""
    block = cls_specialized_block()
    attach_query_parts(block)
    randomized(block)
    torch.manual_seed(1)
    x = torch.randn(2, NUM_CLS + NUM_REG + NUM_Q + HW[0] * HW[1], DIM, requires_grad=True)
    x_ref = x.detach().clone().requires_grad_()
    bf16 = mode == 'bf16'
    with torch.autocast('cpu', dtype=torch.bfloat16, enabled=bf16):
        out = block(x, layout())
    expected = reference(block, x_ref)
    params = [x, *block.parameters()]
    grads = torch.autograd.grad(out.float().square().sum(), params)
    ref_grads = torch.autograd.grad(expected.square().sum(), [x_ref, *block.parameters()])
    names = ['x', *(n for n, _ in block.named_parameters())]
    if not bf16:
        torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-5)
        for name, g, g_ref in zip(names, grads, ref_grads):
            torch.testing.assert_close(g, g_ref, msg=name, atol=1e-4, rtol=1e-4)
        return
    assert out.dtype == torch.float32  # the LayerScale's fp32 gamma, as timm's
    assert relative_error(out, expected) < 2e-2
    for name, g, g_ref in zip(names, grads, ref_grads):
        assert relative_error(g, g_ref) < 5e-2, name


def test_query_copies_start_as_the_shared_parts_and_then_differ():
    block = randomized(cls_specialized_block())
    x = torch.randn(1, NUM_CLS + NUM_REG + NUM_Q + HW[0] * HW[1], DIM)
    before = block(x, layout())
    attach_query_parts(block)
    torch.testing.assert_close(block(x, layout()), before)
    with torch.no_grad():
        block.query_norm1.weight.add_(1.0)
    after = block(x, layout())
    assert not torch.allclose(after, before)
    # without queries in the layout the copies are unused: the shared block
    plain = TokenLayout(NUM_CLS, HW)
    torch.testing.assert_close(block(x, plain), before)


def test_layer_scale_copies_follow_the_backbone():
    plain = Block(DIM, partial(Attention, num_heads=HEADS), partial(Mlp, hidden=DIM))
    attach_query_parts(plain)
    assert plain.query_ls1 is None and plain.query_norm1 is not None
    with pytest.raises(ValueError, match='no LayerScale'):
        attach_query_parts(plain, layer_scale=True)
    scaled = Block(
        DIM,
        partial(Attention, num_heads=HEADS),
        partial(Mlp, hidden=DIM),
        ls_layer=LayerScale,
    )
    attach_query_parts(scaled, norm=False, qkv=False)
    assert scaled.query_norm1 is None and scaled.attn.query_qkv is None
    assert isinstance(scaled.query_ls2, LayerScale)


def test_query_keys_name_their_shared_part():
    assert query_shared_key('blocks.9.attn.query_qkv.weight') == 'blocks.9.attn.qkv.weight'
    assert query_shared_key('backbone.blocks.3.query_norm1.bias') == 'backbone.blocks.3.norm1.bias'
    assert query_shared_key('blocks.0.query_ls2.gamma') == 'blocks.0.ls2.gamma'
    assert not is_query_key('blocks.0.norm1.cls_weight')
    assert not is_query_key('query_embed.weight')
    with pytest.raises(ValueError, match='not a query-copy key'):
        query_shared_key('blocks.0.norm1.weight')


def test_with_query_rows_needs_the_patch_grid():
    x = torch.randn(1, 5, DIM)
    norm = LayerNorm(DIM)
    assert with_query_rows(norm(x), None, x, TokenLayout(num_queries=2)) is not None
    with pytest.raises(ValueError, match='patch grid'):
        with_query_rows(norm(x), norm, x, TokenLayout(num_queries=2))


def test_the_plain_block_carries_nothing_for_queries_and_attaching_keeps_its_parameters():
    block = cls_specialized_block()
    assert not [n for n in vars(block) | dict(block.named_modules()) if 'query' in n]
    assert not hasattr(block.attn, 'query_qkv')
    before = dict(block.named_parameters())
    attach_query_parts(block)
    assert isinstance(block, QueryBlock) and isinstance(block.attn, QueryAttention)
    after = dict(block.named_parameters())
    assert all(after[k] is p for k, p in before.items())
    assert sorted(set(after) - set(before)) == [
        'attn.query_qkv.bias',
        'attn.query_qkv.weight',
        'query_ls1.gamma',
        'query_ls2.gamma',
        'query_norm1.bias',
        'query_norm1.weight',
        'query_norm2.bias',
        'query_norm2.weight',
    ]
    assert block.copy_sources()['attn.query_qkv.weight'] == 'attn.qkv.weight'
    with pytest.raises(ValueError, match='plain Block'):
        attach_query_parts(block)
