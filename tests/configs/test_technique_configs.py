"""Every shipped technique config can show a difference: it has a plain twin that differs from it
in the technique alone (same recipe, same checkpoint unless it is a frozen probe of a checkpoint
pretrained with the technique), and nothing in it is refused as inert."""

import re

import pytest
import torch
from mmengine.config import Config

from tests.utils import ROOT
from vitspec.layers.specialized import is_cls_key
from vitspec.models import SpecViT
from vitspec.models.backbones.options import SPECIALIZE
from vitspec.runs.technique_comparison import check_comparable, frozen

TECHNIQUE = re.compile(r'-(spec-lora|spec|tg-dct|tg-svd|ls|lws)_')
CONFIGS = sorted(
    p.relative_to(ROOT)
    for p in (ROOT / 'configs').glob('*/*.py')
    if TECHNIQUE.search(p.name) and p.parent.name != 'demo'
)


def test_technique_configs_are_shipped():
    assert CONFIGS


@pytest.mark.parametrize('path', CONFIGS, ids=str)
def test_technique_config_differs_from_its_plain_twin_in_the_technique_only(path):
    twins = [ROOT / path.parent / TECHNIQUE.sub(s, path.name) for s in ('-plain_', '_')]
    twin = next((t for t in twins if t.is_file()), None)
    assert twin, f'{path} has no plain twin ({" or ".join(t.name for t in twins)})'
    plain, technique = Config.fromfile(twin), Config.fromfile(ROOT / path)
    assert check_comparable(plain, technique, (twin.name, path.name))
    backbone = technique.model.backbone
    if frozen(technique):  # a probe measures a checkpoint pretrained with the technique
        assert backbone.init_cfg.checkpoint != plain.model.backbone.init_cfg.checkpoint
    else:  # fine-tuning: the technique's own parameters train
        toy = dict(
            backbone,
            img_size=28,
            embed_dims=32,
            num_layers=3,
            num_heads=2,
            out_indices=(2,),
            init_cfg=None,
        )
        toy.pop('type')
        toy.pop('global_attn_indexes', None)  # ViTDet's blocks of 24: the toy's windows only
        model = SpecViT(**toy)
        cls = [p.requires_grad for n, p in model.named_parameters() if is_cls_key(n)]
        assert all(cls) and (cls or model.token_graying is not None)
        assert model(torch.randn(1, 3, 28, 28))[0].shape[1] == 32


@pytest.mark.parametrize('name', ['specialized', 'specialized_lora'])
def test_specialization_fragment_states_only_what_differs_from_specvits_defaults(name):
    fragment = ROOT / 'configs/_base_/models/techniques' / f'{name}.py'
    given = Config.fromfile(fragment).technique.specialize
    given = {} if given is True else given  # True: SpecViT's defaults
    restated = [k for k, v in given.items() if SPECIALIZE.get(k) == v]
    assert not restated, f'{fragment.name} restates SpecViT.SPECIALIZE defaults: {restated}'
