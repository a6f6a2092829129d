"""The ADE20K linear-probe config an 8-GPU user runs (tools/dist_train.sh CONFIG 8) trains
a few iterations on the demo data with 2 CPU processes and validates; the demo plain and
specialized runs compare side by side."""

import re

import torch

from tests.utils import make_demo_data, run_tool

CONFIG = 'configs/ade20k/linear_vit-s14-dinov2_bnhead_8xb2-40k_ade20k-512x512.py'
ITERS = 4


def demo_overrides(root):
    opts = [
        'model.backbone.init_cfg=None',
        f'train_cfg.max_iters={ITERS}',
        f'train_cfg.val_interval={ITERS}',
        f'default_hooks.checkpoint.interval={ITERS}',
        'default_hooks.logger.interval=2',
        'train_dataloader.batch_size=1',
    ]
    for split in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        opts += [
            f'{split}.dataset.data_root={root}',
            f'{split}.num_workers=0',
            f'{split}.persistent_workers=False',
        ]
    return opts


def test_linear_config_trains_on_demo_data_with_two_processes(tmp_path):
    root = make_demo_data(tmp_path / 'data', 'ade20k', 8, 2)
    work = tmp_path / 'work'
    proc = run_tool(
        [
            'tools/dist_train.sh',
            CONFIG,
            2,
            '--work-dir',
            work,
            '--cfg-options',
            *demo_overrides(root),
        ],
        timeout=600,
    )
    log = proc.stdout + proc.stderr
    assert re.search(r'Iter\(val\) \[1/1\].*mIoU: [0-9.]+', log), log[-3000:]
    ckpt = torch.load(work / f'iter_{ITERS}.pth', weights_only=False)
    # only the head trains: BN weight and bias, conv_seg weight and bias
    assert len(ckpt['optimizer']['state']) == 4
    names = [n for g in ckpt['optimizer']['param_groups'] for n in g['param_names']]
    assert sorted(names) == [
        'decode_head.bn.bias',
        'decode_head.bn.weight',
        'decode_head.conv_seg.bias',
        'decode_head.conv_seg.weight',
    ]
    table = run_tool(['tools/compare_runs.py', work, work, '--metrics', 'mIoU', 'aAcc']).stdout
    assert re.search(rf'^work\s+{ITERS}\s+[0-9.]+\s+[0-9.]+$', table, re.M), table
