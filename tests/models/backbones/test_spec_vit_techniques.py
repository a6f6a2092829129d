"""Each SpecViT option at toy size: its math, its parameters, its failure messages."""

import pytest
import torch
from mmengine.config import Config

from tests.utils import ROOT
from tests.vit_sizes import VIT_S14
from vitspec.checkpoints.load import load_state_dict_strict
from vitspec.layers.layer_scaling import layerwise_widths
from vitspec.layers.specialized import SpecializedLayerNorm, SpecializedLinear
from vitspec.layers.token_graying import TokenGraying
from vitspec.models import SpecViT

TOY = dict(img_size=32, patch_size=8, embed_dims=64, num_layers=6, num_heads=4, out_indices=(1, 5))


def build(**kw):
    torch.manual_seed(0)
    model = SpecViT(**{**TOY, **kw})
    model.init_weights()
    return model.eval()


def features(model, x):
    with torch.no_grad():
        return model(x)


@pytest.mark.parametrize(
    'spec, exact',
    [
        (dict(qkv_blocks=None, layer_scale=False), True),  # norms only
        (dict(lora_rank=4, layer_scale=False), True),  # LoRA: CLS = patch weights + B A, B = 0
        # a specialized LayerScale and its sum are one fused multiply-add (addcmul), timm's a
        # product and a sum: one rounding apart
        (dict(qkv_blocks=None), False),
        (dict(), False),  # full qkv copies in the first third
        (dict(registers='cls', qkv_blocks='all'), False),
    ],
)
def test_plain_checkpoint_into_specialized_model_gives_plain_output(spec, exact):
    plain = build(layer_scale_init=0.1, num_register_tokens=2)
    special = SpecViT(**TOY, layer_scale_init=0.1, num_register_tokens=2, specialize=spec).eval()
    load_state_dict_strict(special, plain.state_dict())  # cls_* keys filled from shared
    x = torch.randn(2, 3, 32, 40)
    for a, b in zip(features(plain, x), features(special, x)):
        if exact:
            assert torch.equal(a, b)
        else:  # a separate small GEMM for the CLS rows, or addcmul, rounds differently (~1e-6)
            torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)


def test_specialized_parameters_are_used_and_placed_as_configured():
    model = build(layer_scale_init=0.1, specialize=dict())
    qkv = [isinstance(b.attn.qkv, SpecializedLinear) for b in model.blocks]
    assert qkv == [True, True, False, False, False, False]  # first L // 3
    assert all(isinstance(b.norm1, SpecializedLayerNorm) for b in model.blocks)
    x = torch.randn(1, 3, 32, 32)
    before = features(model, x)
    with torch.no_grad():
        model.blocks[0].norm1.cls_weight.mul_(3.0)  # CLS-only parameter
    after = features(model, x)
    assert not torch.allclose(before[0], after[0])  # patches read CLS in the joint attention


def test_registers_in_cls_group_use_cls_parameters():
    model = build(num_register_tokens=3, specialize=dict(registers='cls'))
    assert model.num_cls == 4
    model_patch = build(num_register_tokens=3, specialize=dict())
    assert model_patch.num_cls == 1


def test_vit_s14_is_the_config_fragments_size():
    fragment = Config.fromfile(ROOT / 'configs/_base_/models/backbones/vit-s14_dinov2.py')
    assert {k: fragment.backbone[k] for k in VIT_S14} == VIT_S14


def test_specialization_overhead_at_vit_s():
    """QKV copies in the first third of ViT-S/14 add 8.2 % parameters (2602.08626's abstract:
    about 8 %)."""
    with torch.device('meta'):
        plain = sum(p.numel() for p in SpecViT(**VIT_S14).parameters())
        special = sum(p.numel() for p in SpecViT(**VIT_S14, specialize=dict()).parameters())
        lora = sum(p.numel() for p in SpecViT(**VIT_S14, specialize=dict(lora_rank=8)).parameters())
    extra_qkv = 4 * (3 * 384 * 384 + 3 * 384)
    assert special - plain == extra_qkv + 12 * 4 * 384 + 12 * 2 * 384  # + norms + gammas
    assert 0.080 < (special - plain) / plain < 0.085
    assert (lora - plain) / plain < 0.01


def test_class_attention_stage_excludes_cls_and_is_frozen():
    model = build(
        num_class_attn_layers=2, talking_heads=True, pos_embed_cls=False, layer_scale_init=1e-5
    )
    assert model.num_prefix_tokens == 0
    tokens, _ = model._embed(torch.randn(1, 3, 32, 32))
    assert tokens.shape[1] == 16  # patches only
    assert not any(p.requires_grad for p in model.blocks_token_only.parameters())
    cls = model.forward_cls(tokens)
    assert cls.shape == (1, 64)


def test_class_attention_rejects_cls_in_self_attention():
    with pytest.raises(ValueError, match='class-attention layers'):
        SpecViT(**TOY, num_class_attn_layers=2)  # pos_embed_cls defaults to True


def test_layerwise_scaling_widths():
    model = build(
        layerwise_scaling=dict(alpha=(0.5, 1.0), beta=(0.5, 4.0), head_dim=16, ffn_divisor=16)
    )
    expected = layerwise_widths(6, 64, 16, (0.5, 1.0), (0.5, 4.0), ffn_divisor=16)
    got = [(b.attn.num_heads, b.mlp.fc1.out_features) for b in model.blocks]
    assert got == [tuple(w) for w in expected]
    assert got[0] != got[-1]
    assert all(b.attn.qkv.out_features == 3 * 16 * b.attn.num_heads for b in model.blocks)
    assert features(model, torch.randn(1, 3, 32, 32))[1].shape == (1, 64, 4, 4)


def test_token_graying_is_applied_before_patch_embedding():
    model = build(token_graying=dict(mode='dct', eps=0.7))
    plain = build()
    plain.load_state_dict(model.state_dict())
    x = torch.randn(1, 3, 32, 32)
    grayed = TokenGraying(8, 'dct', eps=0.7)(x)
    for a, b in zip(features(model, x), features(plain, grayed)):
        torch.testing.assert_close(a, b)


def test_stochastic_depth():
    model = build(drop_path_rate=0.5)
    assert model.blocks[-1].drop_path1.drop_prob == pytest.approx(0.5)
    assert not hasattr(model.blocks[0].drop_path1, 'drop_prob')  # rate 0: identity
    x = torch.randn(4, 3, 32, 32)
    torch.testing.assert_close(features(model, x), features(model, x))  # eval: deterministic
    model.train()
    torch.manual_seed(1)
    a = model(x)[1]
    torch.manual_seed(2)
    b = model(x)[1]
    assert not torch.allclose(a, b)


def test_layer_depth_for_lr_decay():
    model = build(num_class_attn_layers=2, pos_embed_cls=False)
    total = 6 + 2 + 2
    assert model.get_layer_depth('backbone.pos_embed', 'backbone.') == (0, total)
    assert model.get_layer_depth('backbone.patch_embed.proj.weight', 'backbone.') == (0, total)
    assert model.get_layer_depth('backbone.blocks.0.attn.qkv.weight', 'backbone.') == (1, total)
    assert model.get_layer_depth('backbone.blocks.5.mlp.fc1.bias', 'backbone.') == (6, total)
    depth = model.get_layer_depth('backbone.blocks_token_only.1.ls1.gamma', 'backbone.')
    assert depth == (8, total)
    assert model.get_layer_depth('backbone.norm.weight', 'backbone.') == (9, total)
    assert model.get_layer_depth('decode_head.conv_seg.weight', 'backbone.') == (9, total)


@pytest.mark.parametrize(
    'kw, message',
    [
        (dict(embed_dim=64), "unknown option 'embed_dim'; did you mean 'embed_dims'"),
        (
            dict(specialize=dict(qkv_block=2)),
            "unknown option 'qkv_block'; did you mean 'qkv_blocks'",
        ),
        (dict(layerwise_scaling=dict(alpha_min=0.5)), "unknown option 'alpha_min'"),
        (dict(token_graying=dict(mode='dct', epsilon=0.5)), "did you mean 'eps'"),
    ],
)
def test_unknown_options_name_the_closest_valid_key(kw, message):
    cfg = {**TOY, **kw}
    cfg.pop('embed_dims') if 'embed_dim' in kw else None
    with pytest.raises(TypeError, match=message):
        SpecViT(**cfg)


def test_bad_block_sets():
    with pytest.raises(ValueError, match='first_quarter'):
        SpecViT(**TOY, specialize=dict(qkv_blocks='first_quarter'))
    with pytest.raises(ValueError, match=r'qkv_blocks=\[0, 9\]: .*indices in -6..5'):
        SpecViT(**TOY, specialize=dict(qkv_blocks=[0, 9]))


def test_window_attention_blocks_and_non_divisible_input():
    model = build(window_size=3, global_attn_indexes=(2, 5))
    sizes = [b.attn.window_size for b in model.blocks]
    assert sizes == [3, 3, 0, 3, 3, 0]
    assert features(model, torch.randn(1, 3, 40, 56))[1].shape == (1, 64, 5, 7)
    assert model.get_layer_depth('backbone.blocks.2.attn.qkv.weight', 'backbone.')[0] == 3


def test_skip_connections_removed_in_the_blocks_asked_for():
    from vitspec.models import SpecViT

    toy = dict(img_size=32, patch_size=8, embed_dims=32, num_layers=6, num_heads=2)
    model = SpecViT(**toy, skip=dict(attn=False, blocks='first_half'))
    assert [b.skip_attn for b in model.blocks] == [False] * 3 + [True] * 3
    assert all(b.skip_mlp for b in model.blocks)
    model = SpecViT(**toy, skip=dict(mlp=False, blocks=[-1]))
    assert [b.skip_mlp for b in model.blocks] == [True] * 5 + [False]
    plain = SpecViT(**toy, skip=True)
    assert all(b.skip_attn and b.skip_mlp for b in plain.blocks)
    assert plain.state_dict().keys() == model.state_dict().keys()
    with pytest.raises(TypeError, match="unknown option 'atn'; did you mean 'attn'"):
        SpecViT(**toy, skip=dict(atn=False))
    with pytest.raises(ValueError, match='stochastic depth'):
        SpecViT(**toy, skip=dict(attn=False), drop_path_rate=0.1)
