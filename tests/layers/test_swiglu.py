"""SwiGLU MLP (DINOv2 ViT-g) against DINOv2's formula, timm's SwiGLUPacked and the fused
LayerScale; a specialized block with it equals the plain one at init."""

from functools import partial

import torch
import torch.nn.functional as F
from timm.layers import SwiGLUPacked

from vitspec.layers import Attention, Block, LayerScale, TokenLayout
from vitspec.layers.specialized import (
    SpecializedLayerNorm,
    SpecializedLayerScale,
    SpecializedLinear,
)
from vitspec.layers.swiglu import SwiGLU, swiglu_hidden


def test_width_rule_is_dinov2s():
    # DINOv2 SwiGLUFFNFused: (int(hidden * 2 / 3) + 7) // 8 * 8
    assert swiglu_hidden(4 * 1536) == 4096  # ViT-g: timm packs 2 * 4096 = 8192 into fc1
    assert swiglu_hidden(4 * 384) == 1024
    assert swiglu_hidden(100) == 72  # int(66.7) = 66, rounded up to 72
    assert swiglu_hidden(96) == 64


def test_matches_dinov2_formula_gate_first():
    """DINOv2: x1, x2 = w12(x).chunk(2); w3(silu(x1) * x2), written out by hand."""
    torch.manual_seed(0)
    dim, hidden = 24, 40
    w1, w2, w3 = torch.randn(hidden, dim), torch.randn(hidden, dim), torch.randn(dim, hidden)
    b1, b2, b3 = torch.randn(hidden), torch.randn(hidden), torch.randn(dim)
    mlp = SwiGLU(dim, hidden)
    with torch.no_grad():
        mlp.fc1.weight.copy_(torch.cat([w1, w2]))  # w12 packs w1 (gated) then w2
        mlp.fc1.bias.copy_(torch.cat([b1, b2]))
        mlp.fc2.weight.copy_(w3)
        mlp.fc2.bias.copy_(b3)
    x = torch.randn(2, 7, dim)
    expected = (F.silu(x @ w1.T + b1) * (x @ w2.T + b2)) @ w3.T + b3
    torch.testing.assert_close(mlp(x), expected)
    swapped = (F.silu(x @ w2.T + b2) * (x @ w1.T + b1)) @ w3.T + b3
    assert not torch.allclose(mlp(x), swapped, atol=1e-3)  # the half order matters


def test_same_weights_same_output_as_timm_swiglu_packed():
    torch.manual_seed(0)
    ref = SwiGLUPacked(in_features=32, hidden_features=2 * 48)
    mlp = SwiGLU(32, 48)
    mlp.load_state_dict(ref.state_dict())  # timm names: fc1 (packed), fc2; nothing else
    x = torch.randn(3, 5, 32)
    torch.testing.assert_close(mlp(x), ref(x), rtol=0, atol=0)


def test_specialized_block_with_swiglu_equals_plain_at_init():
    torch.manual_seed(0)
    mlp = partial(SwiGLU, hidden=swiglu_hidden(128))
    plain = Block(
        32, partial(Attention, num_heads=2), mlp, ls_layer=partial(LayerScale, init_value=0.3)
    ).eval()
    special = Block(
        32,
        partial(Attention, num_heads=2, qkv_layer=SpecializedLinear),
        mlp,
        norm_layer=SpecializedLayerNorm,
        ls_layer=partial(SpecializedLayerScale, init_value=0.3),
    ).eval()
    sd = plain.state_dict()
    own = special.state_dict()
    # the CLS copies start from the shared weights, as SpecViT.fill_missing does
    for key in own:
        if key not in sd:
            sd[key] = sd[key.replace('cls_', '')].clone()
    special.load_state_dict(sd)
    assert isinstance(special.mlp, SwiGLU) and special.mlp.fc1.out_features == 2 * 88
    x = torch.randn(2, 9, 32)
    layout = TokenLayout(num_cls=1)
    torch.testing.assert_close(special(x, layout), plain(x, layout), rtol=0, atol=1e-6)
