"""Atomic file writes: a crash mid-write never leaves a half file under the final name.

Importing this module makes mmengine's local file backend (used for checkpoints and the
``last_checkpoint`` pointer) write to a temporary file beside the target and rename it.
"""
import os
import os.path as osp
import tempfile

from mmengine.fileio import LocalBackend, register_backend


def atomic_write_bytes(data: bytes, path) -> None:
    path = os.fspath(path)
    directory = osp.dirname(osp.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f'.{osp.basename(path)}.', suffix='.tmp')
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if osp.exists(tmp):
            os.remove(tmp)
        raise


class AtomicLocalBackend(LocalBackend):
    """mmengine's LocalBackend with atomic ``put`` / ``put_text``."""

    def put(self, obj: bytes, filepath) -> None:
        atomic_write_bytes(obj, filepath)

    def put_text(self, obj: str, filepath, encoding: str = 'utf-8') -> None:
        atomic_write_bytes(obj.encode(encoding), filepath)


register_backend('local', AtomicLocalBackend, prefixes='', force=True)
