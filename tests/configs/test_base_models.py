"""Every backbone and technique fragment in configs/_base_/models builds a SpecViT."""

import itertools

import pytest
import torch
from mmengine.config import Config

from tests.utils import ROOT
from vitspec.models import SpecViT

MODELS = ROOT / 'configs' / '_base_' / 'models'
BACKBONES = sorted((MODELS / 'backbones').glob('[!_]*.py'))  # _*.py: shared bases
TECHNIQUES = sorted((MODELS / 'techniques').glob('*.py'))
# CaiT keeps CLS out of the self-attention stage: nothing to specialize or add registers to.
# CaiT's class-attention blocks have the plain MLP; DINOv2 ViT-g's is SwiGLU.
INCOMPATIBLE = {('cait-xxs24', t) for t in ('specialized', 'specialized_lora', 'registers')} | {
    ('vit-g14_dinov2', 'class_attention')
}
# DINOv3 (rotary embedding): talking heads have no rotary form; S+, L+, H+ and 7B have SwiGLU.
DINOV3 = ('vit-s16', 'vit-s16plus', 'vit-b16', 'vit-l16', 'vit-l16plus', 'vit-h16plus', 'vit-7b16')
INCOMPATIBLE |= {(f'{b}_dinov3', 'talking_heads') for b in DINOV3}
INCOMPATIBLE |= {(f'{b}_dinov3', 'class_attention') for b in DINOV3 if 'plus' in b or '7b' in b}
# Without a skip connection there is no residual branch for stochastic depth to drop.
NO_SKIP = ('no_attention_skip', 'no_mlp_skip')
WITH_DROP_PATH = [b for b in BACKBONES if Config.fromfile(b).backbone.get('drop_path_rate', 0) > 0]
INCOMPATIBLE |= {(b.stem, t) for b in WITH_DROP_PATH for t in NO_SKIP}


@pytest.mark.parametrize(
    'backbone, technique',
    [
        (b, t)
        for b, t in itertools.product(BACKBONES, TECHNIQUES)
        if (b.stem, t.stem) not in INCOMPATIBLE
    ],
    ids=lambda p: p.stem,
)
def test_fragment_builds(backbone, technique):
    cfg = dict(Config.fromfile(backbone).backbone)
    cfg.update(Config.fromfile(technique).technique)
    assert cfg.pop('type') == 'SpecViT'
    with torch.device('meta'):
        model = SpecViT(**cfg)
    assert len(model.blocks) == cfg['num_layers']


@pytest.mark.parametrize('technique', ['specialized', 'registers'])
def test_incompatible_combination_is_refused(technique):
    cfg = dict(Config.fromfile(MODELS / 'backbones' / 'cait-xxs24.py').backbone)
    cfg.update(Config.fromfile(MODELS / 'techniques' / f'{technique}.py').technique)
    cfg.pop('type')
    with pytest.raises(ValueError, match='class-attention layers'):
        SpecViT(**cfg)


def test_class_attention_on_a_swiglu_backbone_is_refused():
    cfg = dict(Config.fromfile(MODELS / 'backbones' / 'vit-g14_dinov2.py').backbone)
    cfg.update(Config.fromfile(MODELS / 'techniques' / 'class_attention.py').technique)
    cfg.pop('type')
    with pytest.raises(ValueError, match='plain MLP'), torch.device('meta'):
        SpecViT(**cfg)


@pytest.mark.parametrize('technique', NO_SKIP)
def test_a_skip_removed_on_a_backbone_with_drop_path_is_refused(technique):
    assert WITH_DROP_PATH, 'no backbone fragment with drop path: the refusal is untested here'
    cfg = dict(Config.fromfile(WITH_DROP_PATH[0]).backbone)
    cfg.update(Config.fromfile(MODELS / 'techniques' / f'{technique}.py').technique)
    cfg.pop('type')
    with pytest.raises(ValueError, match='stochastic depth'), torch.device('meta'):
        SpecViT(**cfg)
