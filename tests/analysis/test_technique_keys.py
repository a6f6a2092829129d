"""The technique comparison's keys are SpecViT's technique arguments, one list
(spec_vit.TECHNIQUE_ARGS): every argument of SpecViT is either a technique or named below as size,
output or training; every technique fragment sets techniques only; a change in any technique
argument counts as technique, and nothing else does."""

import inspect

import pytest
from mmengine.config import Config

from vitspec.analysis.backbone_source import technique_keys
from vitspec.models import SpecViT
from vitspec.models.backbones.spec_vit import TECHNIQUE_ARGS
from vitspec.runs.technique_comparison import recipe_differences

NOT_TECHNIQUES = {
    'img_size',
    'patch_size',
    'in_channels',
    'embed_dims',
    'num_layers',
    'num_heads',
    'mlp_ratio',
    'ffn_type',
    'qkv_bias',
    'pos_embed_interp',
    'norm_eps',
    'out_indices',
    'final_norm',
    'output_cls_token',
    'drop_path_rate',
    'with_cp',
    'frozen_stages',
    'init_cfg',
}
ARGS = [n for n in inspect.signature(SpecViT.__init__).parameters if n not in ('self', 'unknown')]


def test_every_specvit_argument_is_classified():
    unclassified = set(ARGS) - set(TECHNIQUE_ARGS) - NOT_TECHNIQUES
    assert not unclassified, f'SpecViT arguments in neither TECHNIQUE_ARGS nor here: {unclassified}'
    assert set(TECHNIQUE_ARGS) <= set(ARGS) and not set(TECHNIQUE_ARGS) & NOT_TECHNIQUES


def test_the_technique_fragments_set_techniques_only():
    assert technique_keys() and technique_keys() <= set(TECHNIQUE_ARGS)


def config(**backbone):
    return Config(dict(model=dict(backbone=dict(type='SpecViT', **backbone))))


@pytest.mark.parametrize('arg', ARGS)
def test_a_change_counts_as_technique_exactly_for_the_technique_arguments(arg):
    technique, other = recipe_differences(config(), config(**{arg: 'changed'}))
    key = f'model.backbone.{arg}'
    assert (technique, other) == (([key], []) if arg in TECHNIQUE_ARGS else ([], [key]))
