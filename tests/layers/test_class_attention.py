from functools import partial

import pytest
import torch
from timm.models.cait import ClassAttn, LayerScaleBlockClassAttn

from vitspec.layers.class_attention import ClassAttention, ClassAttentionBlock

DIM, HEADS = 64, 4


def perturb_(module):
    with torch.no_grad():  # non-trivial values everywhere, not just the init
        for p in module.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    return module


def timm_to_ours(state):
    names = {'gamma_1': 'ls1.gamma', 'gamma_2': 'ls2.gamma'}
    return {names.get(k, k): v for k, v in state.items()}


@pytest.fixture
def blocks():
    torch.manual_seed(0)
    ref = perturb_(
        LayerScaleBlockClassAttn(
            DIM,
            HEADS,
            qkv_bias=True,
            init_values=1e-1,
            norm_layer=partial(torch.nn.LayerNorm, eps=1e-6),
        )
    ).eval()
    ours = ClassAttentionBlock(DIM, HEADS).eval()
    ours.load_state_dict(timm_to_ours(ref.state_dict()))  # strict: same names, same shapes
    return ref, ours


def test_attention_matches_timm():
    torch.manual_seed(0)
    ref = perturb_(ClassAttn(DIM, HEADS, qkv_bias=True)).eval()
    ours = ClassAttention(DIM, HEADS).eval()
    ours.load_state_dict(ref.state_dict())
    x = torch.randn(2, 17, DIM)
    with torch.no_grad():
        out = ours(x)
        assert out.shape == (2, 1, DIM)
        torch.testing.assert_close(out, ref(x), atol=1e-5, rtol=1e-5)


def test_block_matches_timm(blocks):
    ref, ours = blocks
    x, cls = torch.randn(2, 16, DIM), torch.randn(2, 1, DIM)
    with torch.no_grad():
        out = ours(x, cls)
        assert out.shape == (2, 1, DIM)
        torch.testing.assert_close(out, ref(x, cls), atol=1e-5, rtol=1e-5)


def test_block_parameter_names():
    names = set(ClassAttentionBlock(DIM, HEADS).state_dict())
    assert {
        'norm1.weight',
        'attn.q.weight',
        'attn.k.bias',
        'attn.v.weight',
        'attn.proj.weight',
        'ls1.gamma',
        'norm2.bias',
        'mlp.fc1.weight',
        'mlp.fc2.weight',
        'ls2.gamma',
    } <= names
    torch.testing.assert_close(ClassAttentionBlock(DIM, HEADS).ls1.gamma, torch.full((DIM,), 1e-5))


def test_cls_ignores_patch_order_and_patches_untouched(blocks):
    _, ours = blocks
    x, cls = torch.randn(2, 16, DIM), torch.randn(2, 1, DIM)
    x_copy = x.clone()
    with torch.no_grad():
        out = ours(x, cls)
        # a single query from CLS: no patch-to-patch attention, so the patch order is irrelevant
        permuted = ours(x[:, torch.randperm(16)], cls)
    torch.testing.assert_close(permuted, out, atol=1e-5, rtol=1e-5)
    assert torch.equal(x, x_copy)  # patches are read, never written
    assert not torch.allclose(out, cls)


def test_gradients_reach_patches_and_cls(blocks):
    _, ours = blocks
    x = torch.randn(2, 16, DIM, requires_grad=True)
    cls = torch.randn(2, 1, DIM, requires_grad=True)
    ours(x, cls).sum().backward()
    assert x.grad.abs().sum() > 0 and cls.grad.abs().sum() > 0
