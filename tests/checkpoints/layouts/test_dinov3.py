"""DINOv3: same weights in, same features out, against timm's port (eva.py), from timm's layout
and from DINOv3's own release layout (--format dinov3); rotary embedding with the techniques."""

import inspect

import pytest
import timm
import torch
from mmengine.config import Config

from tests.checkpoints.dinov3_layouts import release_layout, timm_dinov3
from tests.utils import ROOT
from vitspec.checkpoints.convert import convert_checkpoint
from vitspec.checkpoints.load import load_pretrained, load_state_dict_strict
from vitspec.conversion.checkpoint import convert_file
from vitspec.errors import CheckpointError
from vitspec.layers import TokenLayout
from vitspec.models import SpecViT

DEPTH = 4
DEFAULTS = inspect.signature(SpecViT.__init__).parameters
INDICES = (1, 3)


def features(model, x):
    with torch.no_grad():
        return model(x)


def timm_features(ref, x):
    with torch.no_grad():
        out = ref.forward_intermediates(
            x, indices=list(INDICES), norm=True, intermediates_only=True, return_prefix_tokens=True
        )
    return [(fmap, prefix[:, 0]) for fmap, prefix in out]


def assert_same(got, want, tol=1e-4):
    assert len(got) == len(want)
    for (g, g_cls), (w, w_cls) in zip(got, want):
        assert g.shape == w.shape
        assert (g - w).abs().max() <= tol
        assert (g_cls - w_cls).abs().max() <= tol


def specvit(sd, cfg, **override):
    model = SpecViT(**{'out_indices': INDICES, **cfg, **override}, output_cls_token=True).eval()
    load_state_dict_strict(model, sd)
    return model


MODELS = [
    'vit_small_patch16_dinov3',
    'vit_base_patch16_dinov3_qkvb',
    'vit_small_plus_patch16_dinov3',
]


@pytest.mark.parametrize('name', MODELS)
def test_features_and_cls_match_timm(name):
    """From timm's layout and from DINOv3's release layout, at the native size and at a
    non-square size the model was not trained at."""
    ref = timm_dinov3(name, depth=DEPTH)
    models = []
    for sd in (ref.state_dict(), release_layout(ref)):
        sd, cfg = convert_checkpoint(sd, 'dinov3')
        assert cfg['rope'] == dict(base=100.0) and cfg['num_register_tokens'] == 4
        assert cfg['ffn_type'] == ('swiglu' if 'plus' in name else 'mlp')
        models.append(specvit(sd, cfg))
    assert models[0].pos_embed is None
    for size in ((224, 224), (160, 224)):
        x = torch.randn(1, 3, *size)
        want = timm_features(ref, x)
        for model in models:
            assert_same(features(model, x), want)


def test_the_release_layouts_masked_k_bias_is_applied():
    ref = timm_dinov3('vit_base_patch16_dinov3_qkvb', depth=1)
    release = release_layout(ref)
    assert release['blocks.0.attn.qkv.bias'][768:1536].abs().sum() > 0
    sd, _ = convert_checkpoint(release, 'dinov3')
    assert torch.equal(sd['blocks.0.attn.qkv.bias'][768:1536], torch.zeros(768))
    assert not any(k.endswith('bias_mask') or k == 'mask_token' for k in sd)


def test_dinov3_7b_form_without_qkv_bias():
    """ViT-7B's SwiGLU (ffn_ratio 3) and no qkv bias, at a toy width."""
    ref = timm_dinov3('vit_7b_patch16_dinov3', depth=2, embed_dim=256, num_heads=4)
    sd, cfg = convert_checkpoint(release_layout(ref), 'dinov3')
    assert (cfg['ffn_type'], cfg['mlp_ratio'], cfg['qkv_bias']) == ('swiglu', 3.0, False)
    model = SpecViT(**cfg, out_indices=(0, 1), output_cls_token=True).eval()
    load_state_dict_strict(model, sd)
    x = torch.randn(1, 3, 96, 64)
    with torch.no_grad():
        want = ref.forward_intermediates(
            x, indices=[0, 1], norm=True, intermediates_only=True, return_prefix_tokens=True
        )
    assert_same(features(model, x), [(f, p[:, 0]) for f, p in want])


def test_stored_bf16_periods_are_kept_and_read_as_base_100():
    ref = timm_dinov3('vit_small_patch16_dinov3', depth=1)
    release = release_layout(ref)
    rounded = release['rope_embed.periods'].bfloat16()
    release['rope_embed.periods'] = rounded  # as DINOv3's released files store them
    sd, cfg = convert_checkpoint(release, 'dinov3')
    assert cfg['rope'] == dict(base=100.0) and cfg['num_heads'] == 6
    model = specvit(sd, cfg, out_indices=(0,))  # depth 1
    assert torch.equal(model.rope.periods, rounded.float())
    assert not torch.equal(model.rope.periods, ref.rope.periods)


def test_release_file_converts_and_loads_through_init_cfg(tmp_path):
    ref = timm_dinov3('vit_small_plus_patch16_dinov3', depth=DEPTH)
    src, dst = tmp_path / 'dinov3_vits16plus_pretrain.pth', tmp_path / 'converted.pth'
    release = release_layout(ref)
    release['local_cls_norm.weight'] = torch.ones(384)  # 7B / SAT: pretraining only
    torch.save(release, src)
    backbone_cfg = convert_file(str(src), str(dst), 'dinov3')
    saved = torch.load(dst, weights_only=True)
    assert saved['meta']['backbone_cfg'] == backbone_cfg
    assert backbone_cfg['with_pos_embed'] is False and backbone_cfg['norm_eps'] == 1e-5
    model = SpecViT(
        **backbone_cfg,
        out_indices=INDICES,
        output_cls_token=True,
        init_cfg=dict(type='Pretrained', checkpoint=str(dst)),
    )
    model.init_weights()
    x = torch.randn(1, 3, 192, 128)
    assert_same(features(model.eval(), x), timm_features(ref, x))


def test_conversion_is_strict(tmp_path):
    ref = timm_dinov3('vit_small_patch16_dinov3', depth=1)
    release = release_layout(ref)
    src, dst = tmp_path / 'src.pth', tmp_path / 'dst.pth'
    torch.save({**release, 'cls_norm.weight': torch.ones(384)}, src)  # untied CLS norm
    with pytest.raises(CheckpointError, match='cls_norm.weight'):
        convert_file(str(src), str(dst), 'dinov3')
    assert not dst.exists()
    with pytest.raises(CheckpointError, match='num_heads=12 .* make 6 heads'):
        convert_checkpoint(release, 'dinov3', num_heads=12)
    timm_b = release_layout(timm_dinov3('vit_base_patch16_dinov3_qkvb', depth=1))
    nan_mask = {**timm_b, 'blocks.0.attn.qkv.bias_mask': torch.full((2304,), float('nan'))}
    with pytest.raises(CheckpointError, match='not finite'):
        convert_checkpoint(nan_mask, 'dinov3')
    dinov2 = timm.create_model('vit_small_patch14_dinov2', pretrained=False, depth=1)
    with pytest.raises(CheckpointError, match='no pos_embed'):
        convert_checkpoint(dinov2.state_dict(), 'dinov3')


FRAGMENTS = [
    ('vit-s16_dinov3', 'vit_small_patch16_dinov3_qkvb'),
    ('vit-s16plus_dinov3', 'vit_small_plus_patch16_dinov3_qkvb'),
    ('vit-b16_dinov3', 'vit_base_patch16_dinov3_qkvb'),
    ('vit-l16_dinov3', 'vit_large_patch16_dinov3_qkvb'),
    ('vit-h16plus_dinov3', 'vit_huge_plus_patch16_dinov3_qkvb'),
    ('vit-7b16_dinov3', 'vit_7b_patch16_dinov3'),
]


@pytest.mark.parametrize('fragment, name', FRAGMENTS)
def test_fragment_is_the_architecture_the_converter_reads(fragment, name):
    """The fragment's SpecViT arguments equal those read off the full-size model's keys."""
    with torch.device('meta'):
        sd = timm.create_model(name, pretrained=False, num_classes=0).state_dict()
    _, inferred = convert_checkpoint(sd, 'dinov3')
    frag = dict(Config.fromfile(ROOT / f'configs/_base_/models/backbones/{fragment}.py').backbone)
    assert dict(frag.pop('rope')).items() >= inferred.pop('rope').items()
    for key, value in inferred.items():
        assert frag.get(key, DEFAULTS[key].default) == value, key


@pytest.mark.parametrize('registers', ['patch', 'cls'])
def test_specialized_backbone_starts_as_timms_dinov3(registers):
    """Specialization (CLS copies of norms, LayerScales and qkv in every block) with the
    registers in either group: at init it is the plain DINOv3, so neither the CLS group nor
    the registers may be rotated."""
    ref = timm_dinov3('vit_small_patch16_dinov3', depth=2)
    sd, cfg = convert_checkpoint(ref.state_dict(), 'dinov3')
    spec = dict(qkv_blocks='all', registers=registers)
    model = SpecViT(**cfg, out_indices=(0, 1), output_cls_token=True, specialize=spec).eval()
    filled = load_state_dict_strict(model, sd)
    assert 'blocks.0.attn.qkv.cls_weight' in filled
    assert model.num_cls == (5 if registers == 'cls' else 1)
    x = torch.randn(1, 3, 64, 96)
    with torch.no_grad():
        want = ref.forward_intermediates(
            x, indices=[0, 1], norm=True, intermediates_only=True, return_prefix_tokens=True
        )
    assert_same(features(model, x), [(f, p[:, 0]) for f, p in want])


def toy_rope(**kwargs):
    torch.manual_seed(0)
    cfg = dict(
        patch_size=8,
        embed_dims=64,
        num_layers=3,
        num_heads=4,
        with_pos_embed=False,
        pos_embed_cls=False,
        rope=True,
        layer_scale_init=1.0,
        out_indices=(0, 2),
    )
    model = SpecViT(**{**cfg, **kwargs})
    model.init_weights()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    return model.eval()


def run_twice(model, x):
    a, b = features(model, x), features(model, x)
    for u, v in zip(a, b):
        assert torch.equal(u, v)
    return a


def test_windowed_rope_backbone_is_deterministic_and_rotates():
    x = torch.randn(1, 3, 80, 56)  # a 10 x 7 grid: windows of 4 are padded
    kwargs = dict(num_register_tokens=4, window_size=4, global_attn_indexes=(1,))
    model = toy_rope(**kwargs)
    got = run_twice(model, x)
    assert got[0].shape == (1, 64, 10, 7)
    model.rope.periods.mul_(1.5)  # the rotation reaches the windowed and the global blocks
    assert (features(model, x)[0] - got[0]).abs().max() > 1e-4


def test_class_attention_with_rope_rotates_the_patch_keys():
    model = toy_rope(num_class_attn_layers=2)
    x = torch.randn(2, 3, 48, 64)
    run_twice(model, x)
    tokens, hw = model._embed(x)
    with torch.no_grad():
        for blk in model.blocks:
            tokens = blk(tokens, TokenLayout(0, hw, model.rope(hw)))
        cls = model.forward_cls(tokens, hw)
        assert torch.equal(cls, model.forward_cls(tokens, hw))
        model.rope.periods.mul_(1.5)
        assert (model.forward_cls(tokens, hw) - cls).abs().max() > 1e-5
    with pytest.raises(ValueError, match='forward_cls needs the patch grid'):
        model.forward_cls(tokens)


def test_layerwise_scaling_rotates_its_own_head_width():
    model = toy_rope(layerwise_scaling=dict(head_dim=16, alpha=(0.5, 1.0)))
    assert model.rope.periods.numel() == 16 // 4
    assert {blk.attn.head_dim for blk in model.blocks} == {16}
    run_twice(model, torch.randn(1, 3, 40, 48))


def test_a_checkpoint_without_periods_gets_those_of_the_options():
    model = toy_rope()
    sd = {k: v for k, v in model.state_dict().items() if k != 'rope.periods'}
    fresh = toy_rope(rope=dict(base=100.0))
    assert load_state_dict_strict(fresh, sd) == ['rope.periods']
    assert torch.equal(fresh.rope.periods, model.rope.periods)


@pytest.mark.parametrize(
    'kwargs, match',
    [
        (dict(rel_pos_bias='decomposed'), 'no rel_pos_bias'),
        (dict(talking_heads=True), 'no rotary form'),
        (dict(rope=None), 'with_pos_embed=False builds no learned position table'),
        (dict(pos_embed_cls=True), 'set pos_embed_cls=False'),
        (dict(rope=dict(period=10)), "unknown option 'period'"),
    ],
)
def test_rope_refusals(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        toy_rope(**kwargs)


def test_a_checkpoint_with_a_position_table_is_refused_by_a_rope_model(tmp_path):
    sd = dict(toy_rope().state_dict(), pos_embed=torch.zeros(1, 16, 64))  # a DINOv2-style table
    torch.save({'state_dict': sd}, tmp_path / 'dinov2_like.pth')
    with pytest.raises(CheckpointError, match='pos_embed'):
        load_pretrained(toy_rope(), str(tmp_path / 'dinov2_like.pth'))
