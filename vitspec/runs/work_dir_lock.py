"""One training run per work dir: a second run started in a work dir in use stops with a message
instead of overwriting and pruning the first one's checkpoints and replacing its config copy.

The owner holds a POSIX record lock (``fcntl.lockf``) on ``WORK_DIR/.vitspec-train.lock`` for the
life of its process. The kernel releases it when that process ends, however it ends (``kill -9``
included), and a forked child (a data loader worker) does not inherit it, so a lock left by a
killed run is simply taken over and kill-and-resume keeps working. Only the job's global rank 0
takes it: the other ranks of the same job share its work dir.
"""

import fcntl
import os
import os.path as osp
import socket
import sys
import time
from contextlib import contextmanager
from typing import Iterator

from mmengine.logging import print_log

from vitspec.errors import WorkDirInUseError

LOCK_NAME = '.vitspec-train.lock'


def global_rank(launcher: str = 'none') -> int:
    """This process's rank in its job, read before the process group exists: torchrun sets
    RANK, srun SLURM_PROCID (mmengine copies it to RANK only when it starts the group)."""
    if launcher == 'none':
        return 0
    return int(os.environ.get('RANK', os.environ.get('SLURM_PROCID', 0)))


@contextmanager
def work_dir_owned(work_dir: str, launcher: str = 'none') -> Iterator[None]:
    """Own ``work_dir`` for the length of the block (rank 0 only); raises WorkDirInUseError
    naming the owner when a live process holds it."""
    if global_rank(launcher) != 0:
        yield
        return
    fd = _take(osp.abspath(work_dir))
    try:
        yield
    finally:
        os.ftruncate(fd, 0)  # an empty lock file: the last owner ended cleanly
        os.close(fd)  # releases the lock


def _take(work_dir: str) -> int:
    os.makedirs(work_dir, exist_ok=True)
    path = osp.join(work_dir, LOCK_NAME)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        owner = _owner(fd)
        os.close(fd)
        raise WorkDirInUseError(
            f'work dir {work_dir} is in use by another training run ({owner}); wait for it to '
            f'end or give this run another --work-dir (lock file {path}, released when that '
            'process ends)'
        ) from None
    previous = _owner(fd)
    if previous:
        print_log(
            f'{path}: taking over from a run that ended without releasing it ({previous})',
            logger='current',
        )
    me = (
        f'pid {os.getpid()} on {socket.gethostname()}, started '
        f'{time.strftime("%Y-%m-%d %H:%M:%S")}: {" ".join(sys.argv)}'
    )
    os.ftruncate(fd, 0)
    os.pwrite(fd, me.encode(), 0)
    return fd


def _owner(fd: int) -> str:
    return os.pread(fd, 4096, 0).decode(errors='replace').strip()
