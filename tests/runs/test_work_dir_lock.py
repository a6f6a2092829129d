"""A work dir has one training run: a second one stops with a message naming the owner; the lock
goes with its process, so a run killed with SIGKILL leaves nothing that blocks a resume."""

import os
import signal
import subprocess
import sys

import pytest

from tests.utils import ROOT, run_tool
from vitspec.errors import WorkDirInUseError
from vitspec.runs.work_dir_lock import LOCK_NAME, work_dir_owned

HOLD = (
    'import sys, time\n'
    'from vitspec.runs.work_dir_lock import work_dir_owned\n'
    'with work_dir_owned(sys.argv[1]):\n'
    '    print("held", flush=True)\n'
    '    time.sleep(600)\n'
)
CONFIG = 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
# every test starts a holder process that imports vitspec: 7-15 s each on a 2-core host
pytestmark = pytest.mark.slow


@pytest.fixture
def holder(tmp_path):
    """A process that owns tmp_path / 'work' until killed."""
    work = tmp_path / 'work'
    proc = subprocess.Popen(
        [sys.executable, '-c', HOLD, str(work)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == 'held'
        yield work, proc
    finally:
        proc.kill()
        proc.wait()


def test_a_second_run_is_refused_naming_the_owner(holder):
    work, proc = holder
    with pytest.raises(WorkDirInUseError, match=f'work dir {work} is in use') as info:
        with work_dir_owned(str(work)):
            pass
    assert f'pid {proc.pid}' in str(info.value)


def test_lock_of_a_killed_run_is_taken_over(holder, capsys):
    work, proc = holder
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with work_dir_owned(str(work)):
        assert f'pid {os.getpid()}' in (work / LOCK_NAME).read_text()
    assert (work / LOCK_NAME).read_text() == ''  # released cleanly: nothing to take over


def test_other_ranks_of_a_job_are_not_refused(holder, monkeypatch):
    work, _ = holder
    monkeypatch.setenv('RANK', '1')
    with work_dir_owned(str(work), launcher='pytorch'):
        pass
    monkeypatch.setenv('RANK', '0')
    with pytest.raises(WorkDirInUseError):
        with work_dir_owned(str(work), launcher='pytorch'):
            pass


def test_train_tool_stops_before_touching_a_work_dir_in_use(holder):
    work, proc = holder
    proc_ = run_tool(['tools/train.py', CONFIG, '--work-dir', work], timeout=300, check=False)
    assert proc_.returncode != 0
    assert f'work dir {work} is in use by another training run (pid {proc.pid}' in proc_.stderr
    assert sorted(p.name for p in work.iterdir()) == [LOCK_NAME]  # no config copy, no logs
