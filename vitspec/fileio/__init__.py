"""Checkpoint I/O that is safe to trust: loading with an allow-list, writing atomically.

Importing this package changes nothing in mmengine; ``install_safe_io()`` puts both in.
"""

from .atomic_write import (
    AtomicLocalBackend,
    atomic_torch_save,
    atomic_write_bytes,
    remove_stale_temporaries,
)
from .install import install_safe_io, safe_io_installed, using_safe_io
from .outputs import FILE, FOLDER, TREE, add_output, check_output, claim_outputs
from .safe_load import ALLOWED_GLOBALS, load_local_checkpoint, safe_torch_load

__all__ = [
    'ALLOWED_GLOBALS',
    'FILE',
    'FOLDER',
    'TREE',
    'AtomicLocalBackend',
    'add_output',
    'check_output',
    'claim_outputs',
    'atomic_torch_save',
    'atomic_write_bytes',
    'install_safe_io',
    'load_local_checkpoint',
    'remove_stale_temporaries',
    'safe_io_installed',
    'safe_torch_load',
    'using_safe_io',
]
