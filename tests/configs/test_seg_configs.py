"""Every segmentation config builds its model (on the meta device), its optimizer and its data
pipelines; linear probes are frozen, and the technique line is the only difference."""
import re
from collections import defaultdict
from pathlib import Path

import pytest
import torch
from mmengine.config import Config
from mmengine.dataset import Compose
from mmengine.optim import build_optim_wrapper
from mmengine.registry import DefaultScope

import vitspec  # noqa: F401  (registers)
from mmseg.registry import MODELS
from tests.utils import ROOT

CONFIGS = sorted(p.relative_to(ROOT) for d in ('ade20k', 'cityscapes')
                 for p in (ROOT / 'configs' / d).glob('*.py'))
DEMO = sorted(p.relative_to(ROOT) for p in (ROOT / 'configs/demo').glob('fcn_specvit-tiny-p8-*.py'))
TECHNIQUES = ('plain', 'ls', 'spec', 'spec-lora', 'lws', 'tg-dct')


def build_model(cfg):
    with DefaultScope.overwrite_default_scope('mmseg'), torch.device('meta'):
        return MODELS.build(cfg.model)


@pytest.mark.parametrize('path', CONFIGS + DEMO, ids=str)
def test_config_builds_model_optimizer_and_pipelines(path):
    cfg = Config.fromfile(ROOT / path)
    model = build_model(cfg)
    h, w = cfg.get('crop_size', (128, 128))
    if model.backbone.token_graying is not None:  # its fp32 autocast guard has no meta kernel;
        model.backbone.token_graying = torch.nn.Identity()  # it keeps the image shape
    with torch.no_grad():
        logits = model.eval()(torch.empty(1, 3, h, w, device='meta'), mode='tensor')
    assert logits.shape[1] == cfg.model.decode_head.num_classes
    with DefaultScope.overwrite_default_scope('mmseg'):
        build_optim_wrapper(model, cfg.optim_wrapper)
        for name in ('train_pipeline', 'test_pipeline', 'tta_pipeline'):
            if name in cfg:
                Compose(cfg[name])
    if Path(path).parent.name == 'ade20k':
        assert cfg.train_dataloader.dataset.data_root == 'data/ade/ADEChallengeData2016'
    elif Path(path).parent.name == 'cityscapes':
        assert cfg.train_dataloader.dataset.data_root == 'data/cityscapes'


@pytest.mark.parametrize('path', [p for p in CONFIGS if p.name.startswith('linear')], ids=str)
def test_linear_probe_is_frozen(path):
    cfg = Config.fromfile(ROOT / path)
    model = build_model(cfg)
    assert not any(p.requires_grad for p in model.backbone.parameters())
    assert {'type': 'LinearProbeHook'} in cfg.custom_hooks
    depth = cfg.model.backbone.num_layers
    expected = [depth - 1] if path.name.startswith('linear_') else list(range(depth - 4, depth))
    assert list(cfg.model.backbone.out_indices) == expected


def name_parts(path: Path) -> dict:
    """linear_vit-s16-spec-lora_bnhead_8xb2-40k_ade20k-512x512 -> algo, size, tech, rest."""
    match = re.fullmatch(
        r'(?P<algo>[a-z0-9]+)_vit-(?P<size>[sbl]16)-(?P<tech>[a-z-]+?)_(?P<rest>.+)', path.stem)
    assert match, path
    return match.groupdict()


def test_each_protocol_and_size_has_every_technique_one_line_apart():
    groups = defaultdict(dict)
    for path in CONFIGS:
        p = name_parts(path)
        groups[p['algo'], p['size'], p['rest']][p['tech']] = path
    assert len(groups) == 2 * 3 * 3  # datasets x sizes x (linear, linear4, upernet)
    for key, by_tech in groups.items():
        assert sorted(by_tech) == sorted(TECHNIQUES), key
        plain = (ROOT / by_tech['plain']).read_text().splitlines()
        for tech, path in by_tech.items():
            lines = (ROOT / path).read_text().splitlines()
            diff = [b for a, b in zip(plain, lines) if a != b]
            assert len(lines) == len(plain) and len(diff) == (tech != 'plain'), path
            assert all('_base_/models/techniques/' in line for line in diff), diff
