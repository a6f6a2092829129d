"""Atomic file writes: a crash mid-write never leaves a half file under the final name.

The bytes go to a temporary file beside the target, which is then renamed over it.
``AtomicLocalBackend`` is mmengine's local file backend (checkpoints, the ``last_checkpoint``
pointer) writing this way; ``install_safe_io`` puts it into mmengine.
"""

import io
import os
import os.path as osp
import tempfile

import torch
from mmengine.fileio import LocalBackend


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
