"""What happens when things go wrong in a real 2-process run: kill -9 and resume, a dying or
failing rank, distributed evaluation, a checkpoint of another model."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from tests.utils import ROOT, free_port, make_demo_data, run_tool

CONFIG = 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
SHORT = [
    'train_dataloader.batch_size=2',
    'train_cfg.max_iters=12',
    'train_cfg.val_interval=100',
    'default_hooks.checkpoint.interval=4',
    'default_hooks.logger.interval=1',
]


@pytest.fixture(scope='module')
def demo_ade(tmp_path_factory) -> Path:
    return make_demo_data(tmp_path_factory.mktemp('demo'), 'ade20k', 48, 25, seed=2)


def options(root, *extra):
    return [
        '--cfg-options',
        *[f'{s}_dataloader.dataset.data_root={root}' for s in ('train', 'val', 'test')],
        *SHORT,
        *extra,
    ]


def start_training(work_dir, root, *extra):
    """tools/dist_train.sh in its own process group, output to work_dir/../<name>.log."""
    log = open(f'{work_dir}.log', 'w')
    proc = subprocess.Popen(
        [
            str(ROOT / 'tools' / 'dist_train.sh'),
            CONFIG,
            '2',
            '--work-dir',
            str(work_dir),
            *options(root, *extra),
        ],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=dict(os.environ, PORT=str(free_port()), PYTHON=sys.executable),
    )
    return proc


def wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f'timed out waiting for {what}')
        time.sleep(0.5)


def weights(path):
    return torch.load(path, weights_only=False)['state_dict']


@pytest.fixture(scope='module')
def uninterrupted(demo_ade, tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp('runs') / 'full'
    proc = start_training(work, demo_ade)
    assert proc.wait(timeout=900) == 0, Path(f'{work}.log').read_text()[-3000:]
    return work


def test_kill_9_then_resume_equals_uninterrupted_run(demo_ade, uninterrupted, tmp_path):
    work = tmp_path / 'killed'
    proc = start_training(work, demo_ade)
    wait_for(
        lambda: (work / 'iter_4.pth').exists() or proc.poll() is not None,
        600,
        'the first checkpoint',
    )
    os.killpg(proc.pid, signal.SIGKILL)  # torchrun and both ranks, mid-training
    proc.wait()
    assert not (work / 'iter_12.pth').exists()
    resumed = start_training(work, demo_ade, '--resume')  # --resume after --cfg-options values
    assert resumed.wait(timeout=900) == 0, Path(f'{work}.log').read_text()[-3000:]
    assert 'Advance dataloader' in Path(f'{work}.log').read_text()
    final, expected = weights(work / 'iter_12.pth'), weights(uninterrupted / 'iter_12.pth')
    assert final.keys() == expected.keys()
    for key in expected:
        assert torch.equal(final[key], expected[key]), key


def test_killed_rank_ends_the_job_promptly(demo_ade, tmp_path):
    work = tmp_path / 'victim'
    proc = start_training(work, demo_ade, 'train_cfg.max_iters=100000')
    log = Path(f'{work}.log')

    # dist_train.sh execs torchrun, whose children are the ranks (each in its own session)
    def workers():
        return subprocess.run(
            ['pgrep', '-P', str(proc.pid)], capture_output=True, text=True
        ).stdout.split()

    try:
        wait_for(lambda: 'Iter(train)' in log.read_text(), 600, 'training to start')
        ranks = workers()
        assert len(ranks) == 2, ranks
        os.kill(int(ranks[-1]), signal.SIGKILL)
        start = time.monotonic()
        rc = proc.wait(timeout=120)
        assert rc != 0
        assert time.monotonic() - start < 60
        assert re.search(r'exitcode\s*:\s*-9|Signal 9|SIGKILL', log.read_text())
    finally:
        for pid in workers() + [str(proc.pid)]:
            subprocess.run(['kill', '-9', pid], capture_output=True)


def test_failing_rank_ends_the_job_with_its_error(demo_ade, tmp_path):
    broken = tmp_path / 'ADEChallengeData2016'
    shutil.copytree(demo_ade, broken)
    bad = sorted((broken / 'images' / 'training').glob('*.jpg'))[5]
    bad.write_bytes(b'\xff\xd8 not really a jpeg')
    work = tmp_path / 'failing'
    proc = start_training(work, broken, 'train_cfg.max_iters=100')
    rc = proc.wait(timeout=600)
    text = Path(f'{work}.log').read_text()
    assert rc != 0
    assert f'failed to load image: {bad}' in text  # mmcv's loader names it


def metrics_of(proc):
    line = re.search(r'^vitspec-metrics (.*)$', proc.stdout, re.M)
    assert line, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(line.group(1))


def test_distributed_evaluation_equals_single_process(demo_ade, uninterrupted, tmp_path):
    ckpt = uninterrupted / 'iter_12.pth'
    common = ['--cfg-options', *[f'test_dataloader.dataset.data_root={demo_ade}']]
    single = run_tool(['tools/test.py', CONFIG, ckpt, '--work-dir', tmp_path / 'one', *common])
    double = run_tool(
        ['tools/dist_test.sh', CONFIG, ckpt, 2, '--work-dir', tmp_path / 'two', *common]
    )
    assert metrics_of(single) == metrics_of(double)  # 25 images: the sampler pads rank 1


def test_checkpoint_of_another_model_is_refused_by_test(demo_ade, uninterrupted, tmp_path):
    ckpt = uninterrupted / 'iter_12.pth'
    proc = run_tool(
        [
            'tools/test.py',
            CONFIG,
            ckpt,
            '--work-dir',
            tmp_path / 'w',
            '--cfg-options',
            f'test_dataloader.dataset.data_root={demo_ade}',
            'model.backbone.num_layers=4',
        ],
        check=False,
    )
    assert proc.returncode != 0
    # the training config saved in it is compared first, before any weight loads
    assert 'iter_12.pth was trained as' in proc.stderr
    assert 'model.backbone.num_layers: trained 6, tested 4' in proc.stderr


def test_copied_work_dir_resumes_its_own_files(demo_ade, tmp_path):
    """tools/train.py as a user runs it: a copied work dir resumes from its own checkpoint (its
    last_checkpoint names the original's), the temporary file of a killed save is removed, and
    checkpoints follow the umask."""
    first = tmp_path / 'work_dirs' / 'fcn_demo'
    two = ['train_cfg.max_iters=2', 'default_hooks.checkpoint.interval=2']
    run_tool(['tools/train.py', CONFIG, '--work-dir', first, *options(demo_ade, *two)])
    copy = tmp_path / 'copy'
    shutil.copytree(first, copy)
    stale = copy / '.iter_4.pth.0a1b2c3d.tmp'
    stale.write_bytes(b'half a checkpoint')
    four = ['train_cfg.max_iters=4', 'default_hooks.checkpoint.interval=2']
    resumed = run_tool(
        ['tools/train.py', CONFIG, '--work-dir', copy, '--resume', *options(demo_ade, *four)]
    )
    log = resumed.stdout + resumed.stderr
    assert f'resuming from {copy}/iter_2.pth, the file of that name in this work dir' in log
    assert 'removed 1 temporary file(s) of an interrupted save' in log and not stale.exists()
    umask = os.umask(0)
    os.umask(umask)
    assert (copy / 'iter_4.pth').stat().st_mode & 0o777 == 0o666 & ~umask
    assert not (first / 'iter_4.pth').exists()
