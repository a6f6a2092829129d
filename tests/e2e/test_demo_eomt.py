"""End to end on the demo ADE20K-layout data: the EoMT demo config trains (its loss falls) and
tools/test.py evaluates the checkpoint, single-scale and with --tta (multi-scale + flip).

In process (tools/train.py's and tools/test.py's main), as a Python start costs 10-30 s on a
busy 2-core host. The demo's own 500 iterations reach about the demo FCN's mIoU (docs in
configs/demo/README.md); the short run here shows learning, not that level."""

import importlib.util
import json
import re

from tests.e2e.test_demo_segmentation import constant_predictor_bound
from tests.utils import ROOT, make_demo_data

CONFIG = 'configs/demo/eomt_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
ITERS = 30


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def data_options(root):
    return [f'{split}_dataloader.dataset.data_root={root}' for split in ('train', 'val', 'test')]


def printed_miou(text: str) -> float:
    line = re.search(r'^vitspec-metrics (.*)$', text, re.M)
    assert line, text[-3000:]
    return json.loads(line.group(1))['mIoU']


def test_eomt_demo_trains_then_tools_test_evaluates(tmp_path, capsys):
    data = make_demo_data(tmp_path / 'data', 'ade20k', 16, 4)
    work = tmp_path / 'work'
    load('train_tool', ROOT / 'tools' / 'train.py').main(
        [
            CONFIG,
            '--work-dir',
            str(work),
            '--cfg-options',
            *data_options(data),
            f'train_cfg.max_iters={ITERS}',
            f'train_cfg.val_begin={ITERS + 1}',  # no validation: tools/test.py evaluates below
            f'default_hooks.checkpoint.interval={ITERS}',
            'default_hooks.logger.interval=1',
            'param_scheduler.0.end=6',  # warm-up and poly decay within the short run
            'param_scheduler.1.begin=5',
            f'param_scheduler.1.end={ITERS}',
        ]
    )
    (scalars,) = work.glob('*/vis_data/scalars.json')
    logged = [json.loads(line) for line in scalars.read_text().splitlines()]
    losses = [entry['loss'] for entry in logged if 'loss' in entry]
    assert len(losses) == ITERS
    first, last = sum(losses[:5]) / 5, sum(losses[-5:]) / 5
    assert last < 0.8 * first, losses  # about 50 -> 35 here
    capsys.readouterr()

    test_tool = load('test_tool', ROOT / 'tools' / 'test.py')
    ckpt = str(work / f'iter_{ITERS}.pth')
    common = ['--cfg-options', *data_options(data)]
    test_tool.main([CONFIG, ckpt, '--work-dir', str(tmp_path / 'test'), *common])
    miou = printed_miou(capsys.readouterr().out)
    test_tool.main([CONFIG, ckpt, '--tta', '--work-dir', str(tmp_path / 'tta'), *common])
    tta_miou = printed_miou(capsys.readouterr().out)
    # above what any constant prediction can score (30 iterations reached 19 mIoU here)
    chance = constant_predictor_bound(data)
    assert miou > chance, (miou, chance)
    assert tta_miou > chance, (tta_miou, chance)
