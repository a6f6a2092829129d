"""tools/compare_techniques.py: plain vs specialized from one checkpoint with one recipe, in one
command; configs that differ beyond the technique are refused before anything trains."""

import re

import pytest
import torch
from mmengine.config import Config

from tests.utils import ROOT, make_demo_data, run_tool
from vitspec.models import SpecViT
from vitspec.runs.technique_comparison import check_comparable

DEMO = 'configs/demo/fcn_specvit-tiny-p8-{}_2xb4-500it_demo-ade20k-128x128.py'
PLAIN, SPEC = DEMO.format('plain'), DEMO.format('spec')
ITERS = 4


def test_only_the_technique_may_differ():
    plain, spec = (Config.fromfile(ROOT / p) for p in (PLAIN, SPEC))
    assert all(
        k.startswith(('model.backbone.specialize', 'technique.specialize'))
        for k in check_comparable(plain, spec, ('plain', 'spec'))
    )
    other = Config.fromfile(ROOT / SPEC)
    other.optim_wrapper.optimizer.lr = 1.0
    with pytest.raises(SystemExit, match='optim_wrapper.optimizer.lr'):
        check_comparable(plain, other, ('plain', 'other'))
    with pytest.raises(SystemExit, match='build the same model'):
        check_comparable(plain, Config.fromfile(ROOT / PLAIN), ('plain', 'plain'))


def test_plain_vs_specialized_from_one_checkpoint_in_one_command(tmp_path):
    root = make_demo_data(tmp_path / 'data', 'ade20k', 16, 4)
    backbone = Config.fromfile(ROOT / PLAIN).model.backbone
    torch.manual_seed(0)
    pretrained = SpecViT(**{k: v for k, v in backbone.items() if k != 'type'})
    pretrained.init_weights()
    checkpoint = tmp_path / 'pretrained.pth'
    torch.save(dict(meta=dict(backbone_cfg={}), state_dict=pretrained.state_dict()), checkpoint)
    options = [
        'model.backbone.init_cfg.type=Pretrained',
        f'model.backbone.init_cfg.checkpoint={checkpoint}',
        f'train_cfg.max_iters={ITERS}',
        f'train_cfg.val_interval={ITERS}',
        f'default_hooks.checkpoint.interval={ITERS}',
    ]
    options += [f'{s}_dataloader.dataset.data_root={root}' for s in ('train', 'val', 'test')]
    proc = run_tool(
        [
            'tools/compare_techniques.py',
            PLAIN,
            SPEC,
            '--gpus',
            2,
            '--work-dir',
            tmp_path / 'runs',
            '--cfg-options',
            *options,
        ],
        timeout=900,
    )
    out = proc.stdout + proc.stderr
    assert re.search(r'differ in [\w., ]*model.backbone.specialize', out)
    assert 'initialized from shared' in out  # the specialized run started from the same weights
    rows = re.findall(
        rf'^(fcn_specvit-tiny-p8-(?:plain|spec)\S*)\s+{ITERS}\s+([0-9.]+)', proc.stdout, re.M
    )
    assert [r[0].split('-')[3].split('_')[0] for r in rows] == ['plain', 'spec'], proc.stdout
