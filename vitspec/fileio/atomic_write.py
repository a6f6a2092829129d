"""Atomic file writes: a crash mid-write never leaves a half file under the final name.

The bytes go to a temporary file beside the target, ``.<name>.<8 hex>.tmp``, which is then
renamed over it. It is created with mode 0666 less the umask, as ``open`` and ``torch.save``
create files (``tempfile.mkstemp`` would make every checkpoint 0600, unreadable to the group on
shared storage). A process killed mid-write leaves the temporary file;
``remove_stale_temporaries`` removes such files when the next run that owns the folder starts.
``AtomicLocalBackend`` is mmengine's local file backend (checkpoints, the ``last_checkpoint``
pointer) writing this way; ``install_safe_io`` puts it into mmengine.
"""

import errno
import io
import os
import os.path as osp
import re
import secrets

import torch
from mmengine.fileio import LocalBackend

try:
    import resource  # Unix only: the file-size limit named in a write error
except ImportError:
    resource = None

# Also matches the names tempfile.mkstemp gave them before (8 of [a-z0-9_]).
TEMPORARY_NAME = re.compile(r'^\..+\.[a-z0-9_]{8}\.tmp$')


# errors of a write that did not fit: what the user can do about each
NO_ROOM = {
    errno.EFBIG: 'raise the file-size limit (`ulimit -f unlimited` in the shell of the run)',
    errno.ENOSPC: 'free space on that disk',
    errno.EDQUOT: 'free space within your quota or ask for a larger one',
}


def atomic_write_bytes(data: bytes, path) -> None:
    """Writes ``data`` to ``path`` through a temporary file; an OSError of the write (the file
    size limit, a full disk, a quota) is raised again naming the path, the size, that nothing
    under ``path`` nor beside it was changed, and what to do."""
    path = os.fspath(path)
    directory = osp.dirname(osp.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = _create_temporary(directory, osp.basename(path))
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        if osp.exists(tmp):
            os.remove(tmp)
        if isinstance(exc, OSError):
            raise _write_error(exc, path, len(data)) from exc
        raise


def _write_error(exc: OSError, path: str, size: int) -> OSError:
    kept = (
        f'nothing was written under that name: the file there before (if any) and the other '
        f'files in {osp.dirname(osp.abspath(path))} (earlier checkpoints) are intact'
    )
    advice = NO_ROOM.get(exc.errno)
    if exc.errno == errno.EFBIG:
        limit = _file_size_limit()
        if limit is not None:
            advice = f'the file-size limit is {limit} bytes: {advice}'
    todo = f'; {advice}, or write elsewhere (--work-dir)' if advice else ''
    message = (
        f'could not write {path} ({size / 2**20:.1f} MiB): {exc.strerror or exc}; {kept}{todo}'
    )
    return OSError(exc.errno, message)


def _file_size_limit():
    """The soft RLIMIT_FSIZE in bytes, None when unlimited or unknown (no resource module)."""
    if resource is None:
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    return None if soft == resource.RLIM_INFINITY else soft


def _create_temporary(directory: str, name: str):
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, 'O_BINARY', 0)
    while True:
        tmp = osp.join(directory, f'.{name}.{secrets.token_hex(4)}.tmp')
        try:
            return os.open(tmp, flags, 0o666), tmp  # the kernel applies the umask
        except FileExistsError:
            continue


def remove_stale_temporaries(directory) -> list:
    """Remove the temporary files of interrupted atomic writes directly in ``directory`` (none
    when it does not exist); returns their names. Call it only where no other process is
    writing: a live writer's file would go too."""
    if not osp.isdir(directory):
        return []
    removed = []
    for entry in sorted(os.scandir(directory), key=lambda e: e.name):
        if TEMPORARY_NAME.match(entry.name) and entry.is_file(follow_symlinks=False):
            os.remove(entry.path)
            removed.append(entry.name)
    return removed


def atomic_torch_save(obj, path) -> None:
    """torch.save that never leaves a half-written file under ``path``."""
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    atomic_write_bytes(buffer.getvalue(), path)


class AtomicLocalBackend(LocalBackend):
    """mmengine's LocalBackend with atomic ``put`` / ``put_text``."""

    def put(self, obj: bytes, filepath) -> None:
        atomic_write_bytes(obj, filepath)

    def put_text(self, obj: str, filepath, encoding: str = 'utf-8') -> None:
        atomic_write_bytes(obj.encode(encoding), filepath)
