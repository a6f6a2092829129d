"""ViTAdapter (ViT-Adapter, arXiv 2205.08534; DINOv3's injector-free form): strides, the ViT
features it reads, gradients, checkpointing, every SpecViT technique, fp32 and CPU bf16."""

import pytest
import torch
from mmseg.registry import MODELS

import vitspec  # noqa: F401  (registers)
from tests.models.toy_techniques import TECHNIQUES, TOY
from vitspec.models.vit_adapter import ViTAdapter

VIT = dict(type='SpecViT', img_size=64, patch_size=8, embed_dims=32, num_layers=4, num_heads=2)
ADAPTER = dict(interaction_indexes=[0, 1, 2, 3], deform_num_heads=2, norm_cfg=dict(type='BN'))


def build(vit=None, **kwargs):
    torch.manual_seed(0)
    model = ViTAdapter(vit=vit or VIT, **{**ADAPTER, **kwargs})
    model.init_weights()
    return model


def toy_vit(technique):
    """The toy SpecViT of the technique with 4 blocks, and an input of its size."""
    vit = {**TOY, **TECHNIQUES[technique], 'num_layers': 4}
    size = vit['img_size']
    return vit, torch.randn(2, 3, *((size, size) if isinstance(size, int) else size))


def away_from_init(model):
    """Zero LoRA factors, rel-pos tables and LayerScale-free parts would hide errors."""
    with torch.no_grad():
        for p in model.vit.parameters():
            if not p.abs().any():
                p.normal_(std=0.02)
    return model


def read_vit_tokens(model):
    """The patch tokens each first extractor reads, recorded as the forward runs."""
    seen = []
    for interaction in model.interactions:
        interaction.extractor.register_forward_hook(lambda m, args, out: seen.append(args[1]))
    return seen


def test_registered_in_mmseg():
    model = MODELS.build(dict(type='ViTAdapter', vit=VIT, **ADAPTER))
    assert isinstance(model, ViTAdapter)


@pytest.mark.parametrize('size', [(64, 64), (72, 40)])
@pytest.mark.parametrize('with_injector', [True, False])
def test_four_maps_at_strides_4_8_16_32(size, with_injector):
    outs = build(with_injector=with_injector)(torch.randn(2, 3, *size))
    expect = [(-(-size[0] // s), -(-size[1] // s)) for s in (4, 8, 16, 32)]
    assert [tuple(o.shape[-2:]) for o in outs] == expect
    assert all(o.shape[:2] == (2, 32) for o in outs)


@pytest.mark.parametrize('technique', sorted(TECHNIQUES))
def test_without_injector_the_vit_computes_its_own_features(technique):
    """DINOv3's form: the extractors read exactly SpecViT's own outputs at the group ends."""
    vit, image = toy_vit(technique)
    model = away_from_init(build({**vit, 'final_norm': True}, with_injector=False)).eval()
    seen = read_vit_tokens(model)
    with torch.no_grad():
        model(image)
        model.vit.out_indices = [0, 1, 2, 3]
        own = model.vit(image)
    assert len(seen) == 4
    for tokens, fmap in zip(seen, own):
        torch.testing.assert_close(tokens, fmap.flatten(2).transpose(1, 2))


def test_injector_changes_the_vit_features_once_its_scale_is_not_zero():
    model = build({**VIT, 'final_norm': False}, init_values=0.0).eval()
    image = torch.randn(1, 3, 64, 64)
    seen = read_vit_tokens(model)
    with torch.no_grad():
        model(image)
        model.vit.out_indices = [0, 1, 2, 3]
        own = model.vit(image)
    torch.testing.assert_close(seen[3], own[3].flatten(2).transpose(1, 2))  # gamma = 0: as ViT
    for interaction in model.interactions:
        torch.nn.init.constant_(interaction.injector.gamma, 0.5)
    seen.clear()
    with torch.no_grad():
        model(image)
    assert not torch.allclose(seen[3], own[3].flatten(2).transpose(1, 2))


@pytest.mark.parametrize('with_injector', [True, False])
def test_gradients_reach_every_trainable_parameter(with_injector):
    model = build(with_injector=with_injector, init_values=0.1)
    sum(o.square().mean() for o in model(torch.randn(2, 3, 64, 64))).backward()
    no_grad = [n for n, p in model.named_parameters() if p.requires_grad and p.grad is None]
    # the final norm is unused when final_norm=False (SpecViT freezes it)
    assert no_grad == []


def test_frozen_vit_trains_the_adapter_only():
    model = build(vit={**VIT, 'frozen_stages': 4, 'final_norm': True}, with_injector=False)
    sum(o.square().mean() for o in model(torch.randn(2, 3, 64, 64))).backward()
    trained = {n.split('.')[0] for n, p in model.named_parameters() if p.grad is not None}
    assert 'vit' not in trained and {'spm', 'interactions', 'level_embed', 'up'} <= trained


@pytest.mark.parametrize('with_injector', [True, False])
def test_checkpointing_gives_the_same_outputs_and_gradients(with_injector):
    image = torch.randn(2, 3, 64, 64)
    results = []
    for with_cp in (False, True):
        model = build(with_injector=with_injector, init_values=0.1, with_cp=with_cp)
        loss = sum(o.square().mean() for o in model(image))
        loss.backward()
        results.append((loss.detach(), [p.grad for p in model.parameters() if p.requires_grad]))
    torch.testing.assert_close(results[0][0], results[1][0])
    for a, b in zip(results[0][1], results[1][1]):
        torch.testing.assert_close(a, b)


# What changes the tokens the adapter reads or writes: prefix tokens (registers, CLS group,
# none), positions (rope), windows, the input (token graying). Every technique's fp32 forward
# is checked above; SpecViT's own bf16 tests cover the techniques inside the blocks.
BF16_TECHNIQUES = (
    'plain',
    'registers',
    'rope',
    'specialized',
    'windowed_attention',
    'class_attention',
    'token_graying_dct',
)


@pytest.mark.parametrize('technique', BF16_TECHNIQUES)
def test_techniques_train_in_fp32_and_cpu_bf16(technique):
    vit, image = toy_vit(technique)
    model = away_from_init(build(vit, init_values=0.1)).eval()  # BN of 2 samples: too sharp
    with torch.no_grad():
        fp32 = model(image)
        with torch.autocast('cpu', torch.bfloat16):
            bf16 = model(image)
    for a, b in zip(fp32, bf16):
        assert torch.isfinite(b).all()
        torch.testing.assert_close(b.float(), a, atol=0.1, rtol=0.1)
    with torch.autocast('cpu', torch.bfloat16):
        sum(o.float().square().mean() for o in model.train()(image)).backward()
    grads = [p.grad for p in model.parameters() if p.requires_grad]
    assert all(g is not None and torch.isfinite(g).all() for g in grads)


def test_layer_depths_follow_the_vit_and_put_the_adapter_on_top():
    model = build()
    depth = dict(
        (n, model.get_layer_depth('backbone.' + n, 'backbone.'))
        for n, _ in model.named_parameters()
    )
    total = depth['vit.patch_embed.proj.weight'][1]
    assert depth['vit.patch_embed.proj.weight'] == (0, total)
    assert depth['vit.blocks.2.attn.qkv.weight'] == (3, total)
    assert depth['spm.fc1.weight'] == depth['level_embed'] == (total - 1, total)


@pytest.mark.parametrize(
    'indexes,message',
    [
        ([[0, 1], [3, 3]], 'contiguous'),
        ([1, 5], 'not a block'),
        ([], 'last block'),
    ],
)
def test_bad_interaction_indexes_are_named(indexes, message):
    with pytest.raises(ValueError, match=f'interaction_indexes.*{message}'):
        ViTAdapter(VIT, indexes, norm_cfg=dict(type='BN'))


def test_upstream_pair_indexes_equal_the_group_ends():
    assert build(interaction_indexes=[[0, 0], [1, 1], [2, 2], [3, 3]]).interaction_indexes == [
        0,
        1,
        2,
        3,
    ]


def test_vit_must_be_a_specvit():
    with pytest.raises(ValueError, match="vit: type must be 'SpecViT'"):
        ViTAdapter(dict(type='VisionTransformer'), [0], norm_cfg=dict(type='BN'))


def test_vit_autocast_runs_the_vit_blocks_in_that_dtype_and_the_adapter_in_its_own():
    """DINOv3's adapter runs its frozen ViT under bfloat16 autocast (dinov3_adapter.py); here on
    the input's device (CPU in this test), the extractors reading float32 tokens."""
    model = build(with_injector=False, vit_autocast='bfloat16').eval()
    dtypes = []
    model.vit.blocks[0].attn.qkv.register_forward_hook(lambda m, a, out: dtypes.append(out.dtype))
    seen = read_vit_tokens(model)
    x = torch.randn(1, 3, 64, 64)
    with torch.no_grad():
        outs = model(x)
        plain = build(with_injector=False).eval()(x)
    assert dtypes == [torch.bfloat16]
    assert all(t.dtype == torch.float32 for t in seen)
    assert all(o.dtype == torch.float32 for o in outs)
    assert any(not torch.equal(a, b) for a, b in zip(outs, plain))
    for a, b in zip(outs, plain):
        assert torch.allclose(a, b, atol=0.1, rtol=0.05)


def test_vit_autocast_refuses_an_unknown_dtype():
    with pytest.raises(ValueError, match="vit_autocast must be one of .*'bf16'"):
        build(vit_autocast='bf16')
