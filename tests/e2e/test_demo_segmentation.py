"""End to end on the demo data: 2-process CPU training and testing, and resume."""

import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

from tests.utils import make_demo_data, run_tool

CONFIG = 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
# 60 iterations reach mIoU 28.6 on this data (100: 54.6), against a constant-predictor bound
# of 9.1: enough to show learning, at a third of the CI time of the former 150.
ITERS = 60


@pytest.fixture(scope='module')
def demo_ade(tmp_path_factory) -> Path:
    return make_demo_data(tmp_path_factory.mktemp('demo'), 'ade20k', 96, 24)


def data_options(root):
    return [
        f'{split}.dataset.data_root={root}'
        for split in ('train_dataloader', 'val_dataloader', 'test_dataloader')
    ]


def constant_predictor_bound(root: Path) -> float:
    """mIoU (in %) that no constant prediction can exceed: 100 / number of classes present."""
    present = set()
    for png in (root / 'annotations' / 'validation').glob('*.png'):
        present |= set(np.unique(np.asarray(Image.open(png)))) - {0}
    return 100.0 / len(present)


def test_dist_train_then_dist_test_beats_chance(demo_ade, tmp_path):
    work = tmp_path / 'work'
    run_tool(
        [
            'tools/dist_train.sh',
            CONFIG,
            2,
            '--work-dir',
            work,
            '--cfg-options',
            *data_options(demo_ade),
            f'train_cfg.max_iters={ITERS}',
            f'train_cfg.val_interval={ITERS}',
            f'default_hooks.checkpoint.interval={ITERS}',
        ]
    )
    ckpt = work / f'iter_{ITERS}.pth'
    assert ckpt.is_file()
    proc = run_tool(
        [
            'tools/dist_test.sh',
            CONFIG,
            ckpt,
            2,
            '--work-dir',
            tmp_path / 'test',
            '--cfg-options',
            *data_options(demo_ade),
        ]
    )
    line = re.search(r'^vitspec-metrics (.*)$', proc.stdout, re.M)
    assert line, proc.stdout[-3000:]
    miou = json.loads(line.group(1))['mIoU']
    chance = constant_predictor_bound(demo_ade)
    assert miou > 1.5 * chance, f'mIoU {miou:.1f} vs constant-predictor bound {chance:.1f}'

    tta = run_tool(
        [
            'tools/test.py',
            CONFIG,
            ckpt,
            '--tta',
            '--work-dir',
            tmp_path / 'tta',
            '--cfg-options',
            *data_options(demo_ade),
        ]
    )
    tta_miou = json.loads(re.search(r'^vitspec-metrics (.*)$', tta.stdout, re.M).group(1))['mIoU']
    assert tta_miou > 1.5 * chance  # the checkpoint loaded into the TTA wrapper, strictly


def test_resume_reaches_same_state_as_uninterrupted(demo_ade, tmp_path):
    common = [
        CONFIG,
        '--cfg-options',
        *data_options(demo_ade),
        'train_cfg.max_iters=6',
        'train_cfg.val_interval=100',
        'default_hooks.checkpoint.interval=3',
        'train_dataloader.batch_size=2',
    ]
    run_tool(['tools/train.py', *common, '--work-dir', tmp_path / 'full'])
    partial = tmp_path / 'partial'
    run_tool(['tools/train.py', *common, 'train_cfg.max_iters=3', '--work-dir', partial])
    (partial / 'iter_3.pth').rename(partial / 'kept.pth')  # the "crash" leaves iter 3 only
    run_tool(['tools/train.py', *common, '--work-dir', partial, '--resume', partial / 'kept.pth'])

    full = torch.load(tmp_path / 'full' / 'iter_6.pth', weights_only=False)
    resumed = torch.load(partial / 'iter_6.pth', weights_only=False)
    assert resumed['meta']['iter'] == full['meta']['iter'] == 6

    def steps(ck):
        return sorted({float(s['step']) for s in ck['optimizer']['state'].values()})

    assert steps(resumed) == steps(full) == [6.0]
    for a, b in zip(resumed['optimizer']['param_groups'], full['optimizer']['param_groups']):
        assert a['lr'] == pytest.approx(b['lr'])
    assert resumed['param_schedulers'] == full['param_schedulers']
