"""tools/train.py and tools/test.py with --compile on the demo segmentation: the compiled run
(inductor) trains with the eager run's losses, and the compiled test step gives its metrics."""

import json
import re
from pathlib import Path

import pytest

from tests.utils import make_demo_data, run_tool
from vitspec.runs.logs import series

CONFIG = 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
ITERS = 3


@pytest.fixture(scope='module')
def demo_ade(tmp_path_factory) -> Path:
    return make_demo_data(tmp_path_factory.mktemp('demo'), 'ade20k', 8, 2)


def options(root):
    data = [
        f'{split}.dataset.data_root={root}'
        for split in ('train_dataloader', 'val_dataloader', 'test_dataloader')
    ]
    return [
        *data,
        f'train_cfg.max_iters={ITERS}',
        'train_cfg.val_interval=1000',
        f'default_hooks.checkpoint.interval={ITERS}',
        'default_hooks.logger.interval=1',
        'train_dataloader.batch_size=2',
        # model inputs of one size, in training and test: no recompilation per input size
        # (varying sizes are covered at toy size in tests/models/test_compile.py)
        'train_dataloader.dataset.pipeline.3.ratio_range=(1.0,1.5)',
        'train_dataloader.dataset.pipeline.3.keep_ratio=False',
        *(f'{split}_dataloader.dataset.pipeline.2.keep_ratio=False' for split in ('val', 'test')),
        'model.data_preprocessor.size=(128,128)',
        'model.data_preprocessor.size_divisor=None',
        'model.backbone.num_layers=2',
        'model.backbone.out_indices=(1,)',
    ]


def test_compiled_training_and_test_match_eager(demo_ade, tmp_path):
    losses = {}
    for name, flag in (('eager', []), ('compiled', ['--compile'])):
        work = tmp_path / name
        proc = run_tool(
            ['tools/train.py', CONFIG, *flag, '--work-dir', work, '--cfg-options']
            + options(demo_ade)
        )
        assert ('Model has been "compiled"' in proc.stdout + proc.stderr) == bool(flag)
        steps, losses[name] = series(work, 'loss')
        assert steps == list(range(1, ITERS + 1)), steps
    assert losses['compiled'] == pytest.approx(losses['eager'], rel=1e-4)
    assert losses['eager'][0] != losses['eager'][-1]  # it trained

    metrics = {}
    checkpoint = tmp_path / 'compiled' / f'iter_{ITERS}.pth'
    # the test step's graph through AOTAutograd, without inductor's code generation (covered
    # by the training above)
    for name, flag in (('eager', []), ('compiled', ['--compile', 'compile.backend=aot_eager'])):
        test = run_tool(
            [
                'tools/test.py',
                CONFIG,
                checkpoint,
                *flag[:1],
                '--work-dir',
                tmp_path / f'test-{name}',
            ]
            + ['--cfg-options', *options(demo_ade), *flag[1:]]
        )
        assert ('test_step compiled' in test.stdout + test.stderr) == bool(flag)
        metrics[name] = json.loads(re.search(r'^vitspec-metrics (.*)$', test.stdout, re.M)[1])
    assert metrics['compiled'] == pytest.approx(metrics['eager'], abs=1e-3)
