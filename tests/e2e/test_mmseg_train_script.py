"""mmseg's own tools/train.py trains our demo config as tools/train.py does: the config alone
brings the finite-loss guard, the hooks (empty dataset, unused parameter, safe checkpoint I/O)."""

import re
import subprocess
import sys
from pathlib import Path

import mmseg
import pytest

from tests.utils import ROOT, make_demo_data, run_tool
from vitspec.fileio import safe_torch_load

MMSEG_TRAIN = Path(mmseg.__file__).parent / '.mim' / 'tools' / 'train.py'
CONFIG = 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
SHORT = [
    'train_dataloader.batch_size=2',
    'train_cfg.max_iters=2',
    'train_cfg.val_interval=100',
    'default_hooks.checkpoint.interval=2',
    'default_hooks.logger.interval=1',
]
HOOKS = ('SafeIOHook', 'EmptyDatasetCheckHook', 'UnusedParameterCheckHook', 'EvalProgressBarHook')

pytestmark = pytest.mark.skipif(not MMSEG_TRAIN.is_file(), reason=f'mmseg ships no {MMSEG_TRAIN}')


@pytest.fixture(scope='module')
def demo_ade(tmp_path_factory) -> Path:
    return make_demo_data(tmp_path_factory.mktemp('demo'), 'ade20k', 4, 2)


def mmseg_train(work_dir, root, *extra):
    """mmseg's script, run as its documentation says: python tools/train.py CONFIG [options]."""
    roots = [f'{s}_dataloader.dataset.data_root={root}' for s in ('train', 'val', 'test')]
    return subprocess.run(
        [
            sys.executable,
            str(MMSEG_TRAIN),
            CONFIG,
            '--work-dir',
            str(work_dir),
            '--cfg-options',
            *roots,
            *SHORT,
            *extra,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


def error_line(proc, kind: str) -> str:
    found = re.findall(rf'^{kind}: .*$', proc.stderr, re.M)
    assert proc.returncode != 0 and found, proc.stdout[-3000:] + proc.stderr[-3000:]
    return found[-1]


def test_trains_with_our_hooks_and_writes_a_safe_checkpoint(demo_ade, tmp_path):
    proc = mmseg_train(tmp_path / 'w', demo_ade)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    log = proc.stdout + proc.stderr
    assert all(hook in log for hook in HOOKS), log[-3000:]
    assert safe_torch_load(str(tmp_path / 'w' / 'iter_2.pth'))['meta']['iter'] == 2
    assert not list((tmp_path / 'w').rglob('*.tmp'))  # atomic writes leave no partial file


def test_nan_loss_stops_as_with_our_train_script(demo_ade, tmp_path):
    nan = 'model.decode_head.loss_decode.loss_weight=nan'
    theirs = error_line(mmseg_train(tmp_path / 'mmseg', demo_ade, nan), 'FloatingPointError')
    roots = [f'{s}_dataloader.dataset.data_root={demo_ade}' for s in ('train', 'val', 'test')]
    ours = run_tool(
        [
            'tools/train.py',
            CONFIG,
            '--work-dir',
            tmp_path / 'ours',
            '--cfg-options',
            *roots,
            *SHORT,
            nan,
        ],
        check=False,
    )
    assert theirs == error_line(ours, 'FloatingPointError')
    assert 'non-finite loss (nan) at iteration 1' in theirs
    assert not list((tmp_path / 'mmseg').glob('iter_*.pth'))


def test_unused_backbone_parameters_are_named(demo_ade, tmp_path):
    proc = mmseg_train(tmp_path / 'w', demo_ade, 'model.backbone.out_indices=[3]')
    line = error_line(proc, r'vitspec\.errors\.UnusedParameterError')
    assert 'first iteration that took an optimizer step (iteration 1): blocks.4.' in line


def test_empty_dataset_is_named(tmp_path):
    empty = tmp_path / 'empty'
    for split in (
        'images/training',
        'annotations/training',
        'images/validation',
        'annotations/validation',
    ):
        (empty / split).mkdir(parents=True)
    proc = mmseg_train(
        tmp_path / 'w',
        empty,
        'train_dataloader.dataset.serialize_data=False',
        'val_dataloader.dataset.serialize_data=False',
    )
    line = error_line(proc, r'vitspec\.errors\.DataFileError')
    assert 'the train dataset (ADE20KDataset) is empty' in line
