from functools import partial

import pytest
import torch
import torch.nn.functional as F

from vitspec.layers import (
    Attention,
    Block,
    LayerNorm,
    LayerScale,
    Linear,
    Mlp,
    NoLayerScale,
    SpecializedLayerNorm,
    SpecializedLayerScale,
    SpecializedLinear,
    TokenLayout,
)
from vitspec.layers.specialized import row_group_of, serving_group, shared_key
from vitspec.models.eomt.query_block import query_block_parts

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
    parameters, query rows the query_* ones, the other rows the shared ones; one softmax
    attention over all tokens; shared proj and MLP."""
    B, N, C = x.shape
    q0 = N - HW[0] * HW[1] - NUM_Q
    groups = [(0, NUM_CLS, 'cls'), (NUM_CLS, q0, 'shared'), (q0, q0 + NUM_Q, 'query')]
    groups.append((q0 + NUM_Q, N, 'shared'))

    def per_group(x, params):
        return torch.cat([params[kind](x[:, a:b]) for a, b, kind in groups], dim=1)

    def norm(m):
        return dict(
            shared=lambda t: F.layer_norm(t, (C,), m.weight, m.bias, 1e-6),
            cls=lambda t: F.layer_norm(t, (C,), m.cls_weight, m.cls_bias, 1e-6),
            query=lambda t: F.layer_norm(t, (C,), m.query_weight, m.query_bias, 1e-6),
        )

    def scale(m):
        return dict(
            shared=lambda t: t * m.gamma,
            cls=lambda t: t * m.cls_gamma,
            query=lambda t: t * m.query_gamma,
        )

    qkv_layer = block.attn.qkv
    qkv = per_group(
        per_group(x, norm(block.norm1)),
        dict(
            shared=lambda t: t @ qkv_layer.weight.T + qkv_layer.bias,
            cls=lambda t: t @ qkv_layer.cls_weight.T + qkv_layer.cls_bias,
            query=lambda t: t @ qkv_layer.query_weight.T + qkv_layer.query_bias,
        ),
    )
    q, k, v = qkv.reshape(B, N, 3, HEADS, C // HEADS).permute(2, 0, 3, 1, 4)
    attn = ((q @ k.transpose(-2, -1)) * (C // HEADS) ** -0.5).softmax(-1)
    y = (attn @ v).transpose(1, 2).reshape(B, N, C) @ block.attn.proj.weight.T
    y = y + block.attn.proj.bias
    x = x + per_group(y, scale(block.ls1))
    h = per_group(x, norm(block.norm2))
    h = F.gelu(h @ block.mlp.fc1.weight.T + block.mlp.fc1.bias)
    h = h @ block.mlp.fc2.weight.T + block.mlp.fc2.bias
    return x + per_group(h, scale(block.ls2))


def layout():
    return TokenLayout(NUM_CLS, HW, num_queries=NUM_Q)


def relative_error(a, b):
    return ((a.float() - b.float()).norm() / b.float().norm()).item()


@pytest.mark.parametrize('mode', ['fp32', 'bf16'])
def test_query_specialized_block_matches_the_plain_op_reference(mode):
    """fp32: to float tolerance (gradients: to fp32 rounding of their scale, ~1e3 here); bf16
    autocast: against the fp32 reference, to bf16's
    relative error, forward and backward."""
    block = cls_specialized_block()
    query_block_parts(block)
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
        for name, g, g_ref in zip(names, grads, ref_grads):  # to fp32 rounding of their scale
            atol = 1e-6 * g_ref.abs().max().item()
            torch.testing.assert_close(g, g_ref, msg=name, atol=atol, rtol=1e-4)
        return
    assert out.dtype == torch.float32  # the LayerScale's fp32 gamma, as timm's
    assert relative_error(out, expected) < 2e-2
    for name, g, g_ref in zip(names, grads, ref_grads):
        assert relative_error(g, g_ref) < 5e-2, name


def test_query_copies_start_as_the_shared_parts_and_then_differ():
    block = randomized(cls_specialized_block())
    x = torch.randn(1, NUM_CLS + NUM_REG + NUM_Q + HW[0] * HW[1], DIM)
    before = block(x, layout())
    query_block_parts(block)
    torch.testing.assert_close(block(x, layout()), before)
    with torch.no_grad():
        block.norm1.query_weight.add_(1.0)
    after = block(x, layout())
    assert not torch.allclose(after, before)
    # without queries in the layout the copies are unused: the shared block
    plain = TokenLayout(NUM_CLS, HW)
    torch.testing.assert_close(block(x, plain), before)


def test_layer_scale_copies_follow_the_backbone():
    plain = Block(DIM, partial(Attention, num_heads=HEADS), partial(Mlp, hidden=DIM))
    query_block_parts(plain)
    assert isinstance(plain.ls1, NoLayerScale) and plain.norm1.groups == ('query',)
    with pytest.raises(ValueError, match='no LayerScale'):
        query_block_parts(plain, layer_scale=True)
    scaled = Block(
        DIM,
        partial(Attention, num_heads=HEADS),
        partial(Mlp, hidden=DIM),
        ls_layer=LayerScale,
    )
    query_block_parts(scaled, norm=False, qkv=False)
    assert type(scaled.norm1) is LayerNorm and type(scaled.attn.qkv) is Linear
    assert isinstance(scaled.ls2, SpecializedLayerScale) and scaled.ls2.groups == ('query',)


def test_query_keys_name_their_shared_part():
    assert shared_key('blocks.9.attn.qkv.query_weight') == 'blocks.9.attn.qkv.weight'
    assert shared_key('backbone.blocks.3.norm1.query_bias') == 'backbone.blocks.3.norm1.bias'
    assert shared_key('blocks.0.ls2.query_gamma') == 'blocks.0.ls2.gamma'
    assert row_group_of('blocks.0.ls2.query_gamma') == 'query'
    assert row_group_of('blocks.0.norm1.cls_weight') == 'cls'
    assert row_group_of('query_embed.weight') is None
    with pytest.raises(ValueError, match='not a CLS-copy key'):
        shared_key('blocks.0.norm1.weight')


def test_query_rows_need_the_patch_grid():
    x = torch.randn(1, 5, DIM)
    norm = serving_group(LayerNorm(DIM), 'query')
    torch.testing.assert_close(norm(x, TokenLayout()), F.layer_norm(x, (DIM,), eps=1e-6))
    with pytest.raises(ValueError, match='patch grid'):
        norm(x, TokenLayout(num_queries=2))


def test_query_blocks_are_plain_blocks_whose_parts_serve_the_query_rows():
    """One mechanism: the query rows are a row group of the specialized layers, in a plain
    Block (its own residual path), with the block's parameters kept."""
    block = cls_specialized_block()
    assert not [n for n in vars(block) | dict(block.named_modules()) if 'query' in n]
    before = dict(block.named_parameters())
    query_block_parts(block)
    assert type(block) is Block and type(block.attn) is Attention
    for part in (block.norm1, block.norm2, block.ls1, block.ls2, block.attn.qkv):
        assert isinstance(part, (SpecializedLayerNorm, SpecializedLayerScale, SpecializedLinear))
        assert part.groups == ('cls', 'query')
    after = dict(block.named_parameters())
    assert all(after[k] is p for k, p in before.items())
    assert sorted(set(after) - set(before)) == [
        'attn.qkv.query_bias',
        'attn.qkv.query_weight',
        'ls1.query_gamma',
        'ls2.query_gamma',
        'norm1.query_bias',
        'norm1.query_weight',
        'norm2.query_bias',
        'norm2.query_weight',
    ]
    with pytest.raises(ValueError, match="serves the row group 'query' already"):
        query_block_parts(block)


def test_plain_parts_become_specialized_layers_of_the_query_group_only():
    block = Block(
        DIM, partial(Attention, num_heads=HEADS), partial(Mlp, hidden=DIM), ls_layer=LayerScale
    )
    shared = block.norm1.weight
    query_block_parts(block)
    assert block.norm1.groups == block.ls1.groups == block.attn.qkv.groups == ('query',)
    assert block.norm1.weight is shared
    assert not [n for n, _ in block.named_parameters() if 'cls_' in n]
