"""SpecViT's ffn_type='swiglu': widths, composition with layer-wise scaling, refusals."""

import pytest
import torch

from vitspec.layers.layer_scaling import layerwise_widths
from vitspec.layers.swiglu import SwiGLU
from vitspec.models import SpecViT

TOY = dict(img_size=28, patch_size=7, embed_dims=96, num_layers=4, num_heads=3)


def test_width_from_mlp_ratio_by_dinov2s_rule():
    model = SpecViT(**TOY, mlp_ratio=4.0, ffn_type='swiglu')
    for blk in model.blocks:
        assert isinstance(blk.mlp, SwiGLU)
        # DINOv2 SwiGLUFFNFused: (int(384 * 2 / 3) + 7) // 8 * 8 = 256
        assert (blk.mlp.fc1.out_features, blk.mlp.fc2.in_features) == (512, 256)
    plain = SpecViT(**TOY, mlp_ratio=4.0)
    assert plain.blocks[0].mlp.fc1.out_features == plain.blocks[0].mlp.fc2.in_features == 384


def test_layerwise_scaling_widths_are_the_gated_widths():
    """OpenELM's GLU FFN (apple/corenet general_gpt.py FeedForwardNetwork): proj_1 has
    2 * intermediate_dim outputs, intermediate_dim = make_divisible(beta_i * model_dim)."""
    lws = dict(alpha=(0.5, 1.0), beta=(0.5, 4.0), head_dim=32, ffn_divisor=32)
    model = SpecViT(**TOY, ffn_type='swiglu', layerwise_scaling=lws)
    widths = layerwise_widths(
        TOY['num_layers'], TOY['embed_dims'], 32, lws['alpha'], lws['beta'], ffn_divisor=32
    )
    assert len({w.mlp_hidden for w in widths}) > 1
    for blk, width in zip(model.blocks, widths):
        assert blk.mlp.fc2.in_features == width.mlp_hidden
        assert blk.mlp.fc1.out_features == 2 * width.mlp_hidden
    x = torch.randn(1, 3, 28, 28)
    assert model(x)[0].shape == (1, 96, 4, 4)


def test_backward_through_specialized_swiglu_with_layer_scale():
    model = SpecViT(**TOY, ffn_type='swiglu', layer_scale_init=0.1, specialize=dict(), with_cp=True)
    model.init_weights()
    model(torch.randn(2, 3, 28, 28))[0].sum().backward()
    blk = model.blocks[0]
    for p in (blk.mlp.fc1.weight, blk.mlp.fc2.weight, blk.ls2.gamma, blk.ls2.cls_gamma):
        assert p.grad is not None and p.grad.abs().sum() > 0


def test_refusals_name_the_option():
    with pytest.raises(ValueError, match="ffn_type='geglu': must be 'mlp' or 'swiglu'"):
        SpecViT(**TOY, ffn_type='geglu')
    with pytest.raises(ValueError, match='class-attention layers .* plain MLP'):
        SpecViT(**TOY, ffn_type='swiglu', num_class_attn_layers=2, pos_embed_cls=False)
