"""A probe grid resumed from its checkpoint ends exactly where the uninterrupted run ends."""

import copy

import pytest
from mmengine.config import Config

from tests.utils import ROOT, make_demo_data
from vitspec.runs.runner import build_runner

CONFIG = ROOT / 'configs/demo/lin-grid_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py'


def grid(root, work_dir, iters, resume_from=None) -> Config:
    cfg = Config.fromfile(CONFIG)
    for split in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        cfg[split].dataset.data_root = str(root)
    cfg.probe_grid.lr = [1e-3, 1e-2]
    cfg.train_cfg.update(max_iters=iters, val_interval=100)
    cfg.param_scheduler = [dict(type='PolyLR', eta_min=0.0, by_epoch=False, begin=0, end=4)]
    cfg.default_hooks.checkpoint.interval = 2
    cfg.update(work_dir=str(work_dir), launcher='none', randomness=dict(seed=5))
    if resume_from:
        cfg.update(resume=True, load_from=str(resume_from))
    return cfg


def trained(cfg) -> dict:
    runner = build_runner(cfg)
    runner.train()
    return copy.deepcopy(runner.model.state_dict())


@pytest.mark.slow
def test_resume_equals_the_uninterrupted_run(tmp_path):
    root = make_demo_data(tmp_path / 'data', 'nyu', 6, 2)
    uninterrupted = trained(grid(root, tmp_path / 'a', 4))
    trained(grid(root, tmp_path / 'b', 2))
    resumed = trained(grid(root, tmp_path / 'b', 4, tmp_path / 'b' / 'iter_2.pth'))
    assert resumed.keys() == uninterrupted.keys()
    changed = [k for k in resumed if not resumed[k].equal(uninterrupted[k])]
    assert not changed, changed[:5]
