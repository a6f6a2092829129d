"""LayerDecayOptimWrapperConstructor: the lr and weight decay of every parameter of a toy model."""

import re

import pytest
import torch
from torch import nn

import vitspec  # noqa: F401  (registers)
from vitspec.engine import LayerDecayOptimWrapperConstructor
from vitspec.models import SpecViT

LR, WD, RATE = 1.0, 0.1, 0.5


class ToySegmentor(nn.Module):
    def __init__(self, **backbone):
        super().__init__()
        self.backbone = SpecViT(
            img_size=16,
            patch_size=4,
            embed_dims=16,
            num_layers=3,
            num_heads=2,
            num_register_tokens=1,
            layer_scale_init=1e-5,
            **backbone,
        )
        self.decode_head = nn.Sequential(
            nn.Conv2d(16, 8, 1), nn.BatchNorm2d(8), nn.Conv2d(8, 4, 1, bias=False)
        )


def build(model, rate=RATE):
    constructor = LayerDecayOptimWrapperConstructor(
        dict(optimizer=dict(type='AdamW', lr=LR, weight_decay=WD)),
        paramwise_cfg=dict(decay_rate=rate),
    )
    return constructor(model)


def expected_depth_from_top(name: str) -> int:
    """3 blocks -> depths 0 (embeddings) .. 4 (everything after the blocks)."""
    if re.match(r'backbone\.(patch_embed|cls_token|reg_token|pos_embed)', name):
        return 4
    block = re.match(r'backbone\.blocks\.(\d+)\.', name)
    return 3 - int(block.group(1)) if block else 0


NO_DECAY = re.compile(
    r'(\.bias|\.cls_bias|cls_token|reg_token|pos_embed|\.norm\d?\.(cls_)?weight|'
    r'\.ls\d\.(cls_)?gamma|decode_head\.1\.weight)$'
)


def groups_by_param(optim_wrapper):
    out = {}
    for group in optim_wrapper.optimizer.param_groups:
        for name in group['param_names']:
            assert name not in out, f'{name} in two groups'
            out[name] = (group['lr'], group['weight_decay'])
    return out


@pytest.mark.parametrize('lora_rank', [None, 4])
def test_every_parameter_gets_its_depth_lr_and_decay(lora_rank):
    model = ToySegmentor(specialize=dict(lora_rank=lora_rank))
    groups = groups_by_param(build(model))
    names = [n for n, _ in model.named_parameters()]
    assert sorted(groups) == sorted(names)
    assert any('cls_gamma' in n for n in names) and any('norm1.cls_weight' in n for n in names)
    assert any(('cls_lora_a' if lora_rank else 'qkv.cls_weight') in n for n in names)
    for name in names:
        lr, wd = groups[name]
        assert lr == pytest.approx(LR * RATE ** expected_depth_from_top(name)), name
        assert wd == (0.0 if NO_DECAY.search(name) else WD), name


def test_identity_not_substring_decides_decay():
    """A weight matrix whose name merely contains 'norm' or 'token' still decays, and a
    norm under an unusual name does not."""
    model = ToySegmentor()
    model.decode_head.add_module('normalizer_proj', nn.Linear(4, 4, bias=False))
    model.decode_head.add_module('token_mixer', nn.Linear(4, 4, bias=False))
    model.decode_head.add_module('post', nn.LayerNorm(4))
    groups = groups_by_param(build(model))
    assert groups['decode_head.normalizer_proj.weight'][1] == WD
    assert groups['decode_head.token_mixer.weight'][1] == WD
    assert groups['decode_head.post.weight'][1] == 0.0


def test_frozen_backbone_gets_no_group_and_no_state():
    model = ToySegmentor(frozen_stages=3)
    optim_wrapper = build(model, rate=1.0)
    assert not any(n.startswith('backbone.') for n in groups_by_param(optim_wrapper))
    out = model.backbone(torch.randn(2, 3, 16, 16))[0]
    model.decode_head(out).sum().backward()
    optim_wrapper.step()
    backbone_ids = {id(p) for p in model.backbone.parameters()}
    state = optim_wrapper.optimizer.state
    assert state and not any(id(p) in backbone_ids for p in state)


class Wrapped(nn.Module):
    """A segmentor whose backbone sits one module down (EoMT: ``network.backbone``)."""

    def __init__(self):
        super().__init__()
        self.network = ToySegmentor()


def test_dotted_backbone_path_decays_the_nested_backbone():
    model = Wrapped()
    constructor = LayerDecayOptimWrapperConstructor(
        dict(optimizer=dict(type='AdamW', lr=LR, weight_decay=WD)),
        paramwise_cfg=dict(decay_rate=RATE, backbone='network.backbone'),
    )
    groups = groups_by_param(constructor(model))
    for name, _ in model.named_parameters():
        inner = name[len('network.') :]
        assert groups[name][0] == pytest.approx(LR * RATE ** expected_depth_from_top(inner)), name


def test_backbone_path_not_found_is_refused_by_name():
    constructor = LayerDecayOptimWrapperConstructor(
        dict(optimizer=dict(type='AdamW', lr=LR, weight_decay=WD)),
        paramwise_cfg=dict(decay_rate=RATE, backbone='network.backbone'),
    )
    with pytest.raises(ValueError, match="backbone='network.backbone' is not an attribute"):
        constructor(ToySegmentor())


def test_backbone_without_layer_depths_is_refused_by_name():
    model = nn.Module()
    model.backbone = nn.Linear(2, 2)
    with pytest.raises(TypeError, match='Linear has no get_layer_depth'):
        build(model)


@pytest.mark.parametrize('scope', ['mmseg', 'mmdet'])
def test_reachable_from_mmseg_and_mmdet_configs(scope):
    from mmengine.optim import build_optim_wrapper
    from mmengine.registry import DefaultScope

    with DefaultScope.overwrite_default_scope(scope):
        optim_wrapper = build_optim_wrapper(
            ToySegmentor(),
            dict(
                type='OptimWrapper',
                optimizer=dict(type='AdamW', lr=LR, weight_decay=WD),
                constructor='LayerDecayOptimWrapperConstructor',
                paramwise_cfg=dict(decay_rate=RATE),
            ),
        )
    lrs = {g['lr'] for g in optim_wrapper.optimizer.param_groups}
    assert lrs == {LR * RATE**k for k in range(5)}


@pytest.mark.parametrize('key', ['custom_keys', 'norm_decay_mult', 'decay_type'])
def test_unknown_paramwise_key_is_refused_naming_the_valid_ones(key):
    optimizer = dict(type='AdamW', lr=1e-3, weight_decay=0.05)
    with pytest.raises(
        ValueError,
        match=rf"\['{key}'\]; valid keys: backbone, decay_rate, "
        r'lr_mults, no_decay_regex',
    ):
        LayerDecayOptimWrapperConstructor(
            dict(type='OptimWrapper', optimizer=optimizer), dict(decay_rate=0.9, **{key: {}})
        )


def test_lr_mults_scale_the_lr_of_the_parameters_a_regex_matches_on_top_of_the_decay():
    """detectron2's lr_factor_func (detrex's DINO: 0.1 for the backbone); the first regex that
    matches a name wins; weight decay unchanged."""
    constructor = LayerDecayOptimWrapperConstructor(
        dict(optimizer=dict(type='AdamW', lr=LR, weight_decay=WD)),
        paramwise_cfg=dict(decay_rate=RATE, lr_mults={r'^backbone\.': 0.1, r'^back': 7.0}),
    )
    groups = constructor(ToySegmentor()).optimizer.param_groups
    lr = {n: g['lr'] for g in groups for n in g['param_names']}
    wd = {n: g['weight_decay'] for g in groups for n in g['param_names']}
    plain = {
        n: g['lr'] for g in build(ToySegmentor()).optimizer.param_groups for n in g['param_names']
    }
    for name, value in lr.items():
        factor = 0.1 if name.startswith('backbone.') else 1.0
        assert value == pytest.approx(plain[name] * factor), name
    assert (
        wd['backbone.blocks.0.attn.qkv.weight'] == WD and wd['backbone.blocks.0.norm1.weight'] == 0
    )
