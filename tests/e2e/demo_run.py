"""A demo config trained and evaluated in process (tools/train.py's and tools/test.py's main), as
a Python start costs 10-30 s on a busy 2-core host: the shared steps of the mask-classification
demo tests (test_demo_eomt.py, test_demo_mask2former.py)."""

import importlib.util
import json
import re

from tests.utils import ROOT


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


def train_losses(config, data, work, iters: int, warmup_end: int) -> list:
    """Train ``iters`` iterations (warm-up to ``warmup_end``, then poly decay, no validation,
    one checkpoint at the end) and return the loss logged at every iteration."""
    load('train_tool', ROOT / 'tools' / 'train.py').main(
        [
            config,
            '--work-dir',
            str(work),
            '--cfg-options',
            *data_options(data),
            f'train_cfg.max_iters={iters}',
            f'train_cfg.val_begin={iters + 1}',  # no validation: tools/test.py evaluates
            f'default_hooks.checkpoint.interval={iters}',
            'default_hooks.logger.interval=1',
            f'param_scheduler.0.end={warmup_end}',  # warm-up and poly decay within the short run
            f'param_scheduler.1.begin={warmup_end - 1}',
            f'param_scheduler.1.end={iters}',
        ]
    )
    (scalars,) = work.glob('*/vis_data/scalars.json')
    logged = [json.loads(line) for line in scalars.read_text().splitlines()]
    losses = [entry['loss'] for entry in logged if 'loss' in entry]
    assert len(losses) == iters
    return losses


def evaluated_miou(config, ckpt, data, work_dir, capsys, *flags) -> float:
    """tools/test.py on ``ckpt`` over the demo data; the mIoU it prints."""
    capsys.readouterr()
    test_tool = load('test_tool', ROOT / 'tools' / 'test.py')
    test_tool.main(
        [config, str(ckpt), *flags, '--work-dir', str(work_dir), '--cfg-options']
        + data_options(data)
    )
    return printed_miou(capsys.readouterr().out)
