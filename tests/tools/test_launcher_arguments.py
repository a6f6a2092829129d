"""The shell launchers refuse a process count that is not a whole number >= 1 before starting
torchrun (whose own message for 0 is a bare AssertionError), naming the argument and the value."""

import os
import subprocess

import pytest

from tests.utils import ROOT

CASES = [
    (['tools/dist_train.sh', 'cfg.py', '0'], {}, 'NUM_GPUS', "'0'"),
    (['tools/dist_train.sh', 'cfg.py', 'two'], {}, 'NUM_GPUS', "'two'"),
    (['tools/dist_test.sh', 'cfg.py', 'ckpt.pth', '0'], {}, 'NUM_GPUS', "'0'"),
    (['tools/dist_test.sh', 'cfg.py', 'ckpt.pth', '-1'], {}, 'NUM_GPUS', "'-1'"),
    (['tools/slurm_train.sh', 'part', 'job', 'cfg.py'], {'GPUS': '0'}, 'GPUS', "'0'"),
    (
        ['tools/slurm_train.sh', 'part', 'job', 'cfg.py'],
        {'GPUS_PER_NODE': '0'},
        'GPUS_PER_NODE',
        "'0'",
    ),
]


@pytest.mark.parametrize(('argv', 'env', 'name', 'value'), CASES)
def test_a_process_count_below_one_is_refused_naming_it(argv, env, name, value):
    done = subprocess.run(
        ['bash', *argv],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert f'{name} must be a whole number of processes >= 1' in done.stderr
    assert f'got {value}' in done.stderr
    assert 'Traceback' not in done.stderr
