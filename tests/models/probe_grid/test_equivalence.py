"""Each head of a probe grid ends where its own single-probe run ends: same settings, seed and
batches give the same weights, for segmentation and for depth, with dropout on (segmentation)
and gradient clipping (depth, in float32 and under bfloat16 autocast). The best head
leaves the run as a checkpoint of its own config, which tools/test.py evaluates to the metric the
grid gave it."""

import copy
import json

import pytest
import torch
from mmengine.config import Config

from tests.utils import ROOT, make_demo_data, run_tool
from vitspec.config.probe_grid import head_configs
from vitspec.models import SpecViT
from vitspec.runs.runner import build_runner, enable_amp

SEG = ROOT / 'configs/demo/fcn_specvit-tiny-p8-plain_2xb4-500it_demo-ade20k-128x128.py'
DEPTH = ROOT / 'configs/demo/lin4_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py'
BACKBONE = dict(num_layers=3, embed_dims=32, num_heads=2, frozen_stages=3, drop_path_rate=0.1)


@pytest.fixture(scope='module')
def demo_root(tmp_path_factory):
    out = tmp_path_factory.mktemp('demo')
    make_demo_data(out, 'ade20k', 6, 2)
    make_demo_data(out, 'nyu', 6, 2)
    return out


def _common(cfg, work_dir, checkpoint, iters):
    cfg.model.backbone.update(
        BACKBONE, init_cfg=dict(type='Pretrained', checkpoint=str(checkpoint))
    )
    cfg.custom_hooks = [*cfg.custom_hooks, dict(type='LinearProbeHook')]
    cfg.optim_wrapper.update(
        clip_grad=None,
        constructor='LayerDecayOptimWrapperConstructor',
        paramwise_cfg=dict(decay_rate=1.0),
    )
    cfg.train_dataloader.update(batch_size=2, num_workers=0, persistent_workers=False)
    cfg.val_dataloader.update(num_workers=0, persistent_workers=False)
    cfg.train_cfg.update(max_iters=iters, val_interval=iters)
    cfg.default_hooks.checkpoint.update(interval=100, save_best=None)
    cfg.default_hooks.logger.interval = 1
    cfg.param_scheduler = [
        dict(type='PolyLR', power=1.0, eta_min=0.0, by_epoch=False, begin=0, end=iters)
    ]
    cfg.work_dir = str(work_dir)
    cfg.launcher = 'none'
    cfg.randomness = dict(seed=3)
    return cfg


def seg_grid(root, work_dir, checkpoint, iters=3) -> Config:
    cfg = _common(Config.fromfile(SEG), work_dir, checkpoint, iters)
    cfg.model.backbone.out_indices = [2]
    cfg.model.decode_head = dict(
        type='LinearBNHead',
        in_channels=[32],
        num_classes=150,
        dropout_ratio=0.3,
        norm_cfg=dict(type='BN'),
        loss_decode=dict(type='CrossEntropyLoss', loss_weight=1.0),
    )
    for split in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        cfg[split].dataset.data_root = str(root / 'ade20k' / 'ADEChallengeData2016')
    cfg.probe_grid = dict(
        heads=[
            dict(name='lr1e-3_last1', lr=1e-3, taps=[2]),
            dict(name='lr5e-3_last2', lr=5e-3, weight_decay=0.05, taps=[1, 2]),
        ]
    )
    return cfg


def save_backbone(cfg, path):
    args = {k: v for k, v in cfg.model.backbone.items() if k not in ('type', 'init_cfg')}
    backbone = SpecViT(**args)
    backbone.init_weights()
    torch.save(backbone.state_dict(), path)


def trained(cfg) -> dict:
    runner = build_runner(cfg)
    runner.train()
    model = runner.model
    return copy.deepcopy(model.state_dict())


def assert_heads_equal_single_runs(cfg, tmp_path) -> None:
    grid = trained(copy.deepcopy(cfg))
    for name, single_cfg in head_configs(cfg).items():
        single_cfg.work_dir = str(tmp_path / name)
        single = trained(single_cfg)
        heads = {k: v for k, v in single.items() if not k.startswith('backbone.')}
        assert any('conv' in k for k in heads)
        for key, value in heads.items():
            torch.testing.assert_close(
                grid[f'probes.{name}.{key}'], value, rtol=0, atol=1e-6, msg=f'{name}: {key}'
            )


@pytest.mark.slow
def test_segmentation_heads_equal_their_single_runs(demo_root, tmp_path):
    checkpoint = tmp_path / 'backbone.pth'
    cfg = seg_grid(demo_root, tmp_path / 'grid', checkpoint)
    save_backbone(cfg, checkpoint)
    assert_heads_equal_single_runs(cfg, tmp_path)
    check_best_checkpoint(tmp_path / 'grid', 'mIoU', tmp_path / 'test')


def check_best_checkpoint(work_dir, key, test_dir):
    record = json.loads((work_dir / 'probe_grid.json').read_text())
    best = record['best']
    scores = record['history'][-1]['scores']
    assert (
        scores[best] == max(scores.values())
        if record['select'][1] == 'greater'
        else min(scores.values())
    )
    done = run_tool(
        [
            'tools/test.py',
            work_dir / 'best_probe.py',
            work_dir / 'best_probe.pth',
            '--work-dir',
            test_dir,
        ]
    )
    line = [ln for ln in done.stdout.splitlines() if ln.startswith('vitspec-metrics ')][-1]
    metrics = json.loads(line.split(' ', 1)[1])
    assert metrics[key] == pytest.approx(scores[best], abs=1e-6)


def depth_grid(root, work_dir, checkpoint, iters=3) -> Config:
    cfg = _common(Config.fromfile(DEPTH), work_dir, checkpoint, iters)
    cfg.optim_wrapper.clip_grad = dict(max_norm=0.05)  # small: every head's step is clipped
    cfg.model.backbone.out_indices = (2,)
    cfg.model.decode_head.update(in_channels=32, num_inputs=1, norm_cfg=dict(type='BN'))
    for split in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        cfg[split].dataset.data_root = str(root / 'nyu')
    cfg.probe_grid = dict(
        heads=[
            dict(name='lin1', lr=1e-3, taps=[2], bn=False),
            dict(name='lin3_bn', lr=3e-3, taps=[0, 1, 2], bn=True),
        ]
    )
    return cfg


@pytest.mark.slow
@pytest.mark.parametrize('amp', [None, 'bf16'])
def test_depth_heads_equal_their_single_runs(demo_root, tmp_path, amp):
    checkpoint = tmp_path / 'backbone.pth'
    cfg = depth_grid(demo_root, tmp_path / 'grid', checkpoint)
    if amp:
        enable_amp(cfg, amp)  # bfloat16 autocast: the grid runs each head as its single run
    save_backbone(cfg, checkpoint)
    assert_heads_equal_single_runs(cfg, tmp_path)
