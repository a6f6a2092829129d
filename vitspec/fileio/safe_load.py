"""Safe checkpoint loading: ``torch.load(weights_only=True)`` with an allow-list.

mmengine 0.10.7 calls ``torch.load`` without ``weights_only``; on torch >= 2.6 that refuses its
own training checkpoints, which pickle a few non-tensor objects. We allow exactly those, and
nothing that can run code: a file that needs any other global is refused and the globals named.
"""

import os.path as osp
import pickle
import zipfile

import numpy as np
import torch
from mmengine.logging import HistoryBuffer

from vitspec.errors import CheckpointError


def _history_buffer_getattr(obj, name):
    # HistoryBuffer pickles its statistics methods as getattr(HistoryBuffer, 'mean'), ...
    known = {'min', 'max', 'current', 'mean', *HistoryBuffer._statistics_methods}
    if obj is HistoryBuffer and name in known:
        return getattr(obj, name)
    raise pickle.UnpicklingError(f'refusing getattr({obj!r}, {name!r}) in a checkpoint')


# What mmengine's Runner stores besides tensors: message-hub history buffers, numpy scalars
# and arrays in the meta / runtime info.
ALLOWED_GLOBALS = [
    HistoryBuffer,
    (_history_buffer_getattr, 'builtins.getattr'),
    np.ndarray,
    np.dtype,
    np._core.multiarray._reconstruct,
    np._core.multiarray.scalar,
    *(getattr(np.dtypes, name) for name in np.dtypes.__all__),
]


def safe_torch_load(filename: str, map_location='cpu'):
    """Load a checkpoint with ``weights_only=True`` and the allow-list above.

    Raises CheckpointError naming the file and, for a refused pickle, the globals it needs.
    """
    if not osp.isfile(filename):
        raise FileNotFoundError(f'checkpoint {filename} does not exist')
    try:
        with torch.serialization.safe_globals(ALLOWED_GLOBALS):
            return torch.load(filename, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as exc:
        if zipfile.is_zipfile(filename):  # a well-formed checkpoint asking for more globals
            raise CheckpointError(_refusal_message(filename, exc)) from None
        raise _unreadable(filename, exc) from None
    except Exception as exc:  # garbage makes the unpickler fail in many ways
        raise _unreadable(filename, exc) from None


def load_local_checkpoint(filename, map_location=None):
    """safe_torch_load with the signature of mmengine's loader for local paths (the one
    ``install_safe_io`` puts into mmengine's CheckpointLoader)."""
    return safe_torch_load(osp.expanduser(filename), map_location)


def _unreadable(filename, exc):
    return CheckpointError(
        f'{filename} is not a readable PyTorch checkpoint (truncated or '
        f'corrupt?): {type(exc).__name__}: {exc}'
    )


def _refusal_message(filename, exc):
    try:
        needed = torch.serialization.get_unsafe_globals_in_checkpoint(filename)
    except Exception:  # not a zip checkpoint: the unpickler's own message is all we have
        needed = []
    allowed = {
        f'{g.__module__}.{g.__qualname__}' for g in ALLOWED_GLOBALS if not isinstance(g, tuple)
    } | {'builtins.getattr'}
    unknown = sorted(set(needed) - allowed)
    if unknown:
        return (
            f'{filename} needs unpickling of globals that are not allowed: '
            f'{", ".join(unknown)}. Refusing to load it (it could run arbitrary code). '
            f'Convert it to a plain state dict of tensors.'
        )
    return f'{filename} was refused by the safe unpickler: {exc}'
