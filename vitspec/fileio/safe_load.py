"""Safe checkpoint loading: ``torch.load(weights_only=True)`` with an allow-list.

mmengine 0.10.7 calls ``torch.load`` without ``weights_only``; on torch >= 2.6 that refuses the
checkpoints mmengine's own Runner writes, which pickle a few non-tensor objects (the message hub's
HistoryBuffers, numpy arrays and scalars). vitspec's Runner writes them as plain data
(engine/checkpointing/plain_data.py), which needs no allow-list; checkpoints written before, and
by other mmengine runs, still do. We allow exactly those objects, and nothing that can run code: a
file that needs any other global is refused and the globals named, unless the user trusts that
one file explicitly (fileio/trusted_pickle.py).
"""

import os.path as osp
import pickle
import zipfile

import numpy as np
import torch
from mmengine.logging import HistoryBuffer

from vitspec.errors import CheckpointError

from .legacy_pickle import legacy_checkpoint_globals
from .training_globals import TRAINING_SCRIPT_GLOBALS
from .trusted_pickle import TRUST_ENV, load_trusted_pickle, trusted_by_env


def _history_buffer_getattr(obj, name):
    # HistoryBuffer pickles its statistics methods as getattr(HistoryBuffer, 'mean'), ...
    known = {'min', 'max', 'current', 'mean', *HistoryBuffer._statistics_methods}
    if obj is HistoryBuffer and name in known:
        return getattr(obj, name)
    raise pickle.UnpicklingError(f'refusing getattr({obj!r}, {name!r}) in a checkpoint')


# What mmengine's Runner stores besides tensors (and vitspec's Runner stored before it wrote plain
# data): message-hub history buffers, numpy scalars and arrays in the meta / runtime info; and
# what training scripts store (training_globals.py).
ALLOWED_GLOBALS = [
    HistoryBuffer,
    (_history_buffer_getattr, 'builtins.getattr'),
    np.ndarray,
    np.dtype,
    np._core.multiarray._reconstruct,
    np._core.multiarray.scalar,
    *(getattr(np.dtypes, name) for name in np.dtypes.__all__),
    *TRAINING_SCRIPT_GLOBALS,
]


def safe_torch_load(
    filename: str, map_location='cpu', trust_pickle: bool = False, mmap: bool = False
):
    """Load a checkpoint with ``weights_only=True`` and the allow-list above. ``mmap``: map
    the tensors of a zip-format file instead of reading them (a look at its meta costs little).

    Raises CheckpointError naming the file and, for a refused pickle, the globals it needs.
    A refused file is unpickled in full only when trusted explicitly: ``trust_pickle`` or its
    path in ``VITSPEC_TRUST_PICKLE`` (see trusted_pickle.py); that logs a WARNING.
    """
    if osp.isdir(filename):
        raise CheckpointError(f'{filename} is a folder, not a checkpoint file{_dcp_hint(filename)}')
    if not osp.isfile(filename):
        raise FileNotFoundError(f'checkpoint {filename} does not exist')
    try:
        with torch.serialization.safe_globals(ALLOWED_GLOBALS):
            mmap = mmap and zipfile.is_zipfile(filename)
            return torch.load(filename, map_location=map_location, weights_only=True, mmap=mmap)
    except pickle.UnpicklingError as exc:
        if trust_pickle or trusted_by_env(filename):
            try:
                return load_trusted_pickle(filename, map_location, _needed_globals(filename))
            except Exception as trusted_exc:
                raise _unreadable(filename, trusted_exc) from None
        unknown = _needed_globals(filename)
        if unknown:  # a well-formed checkpoint asking for more globals
            raise CheckpointError(_refusal_message(filename, unknown)) from None
        if zipfile.is_zipfile(filename):
            raise CheckpointError(f'{filename} was refused by the safe unpickler: {exc}') from None
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


def _needed_globals(filename) -> list:
    """The globals the file needs that the allow-list lacks (empty if it cannot tell). A file in
    torch's legacy (non-zip) format is read with legacy_pickle.py."""
    if zipfile.is_zipfile(filename):
        try:
            needed = torch.serialization.get_unsafe_globals_in_checkpoint(filename)
        except Exception:  # a damaged zip: the unpickler's own message is all we have
            return []
    else:
        needed = set(legacy_checkpoint_globals(filename) or ()) - _torch_allowed_globals()
    allowed = {
        g[1] if isinstance(g, tuple) else f'{g.__module__}.{g.__qualname__}'
        for g in ALLOWED_GLOBALS
    }
    return sorted(set(needed) - allowed)


def _torch_allowed_globals() -> set:
    """What torch's weights-only unpickler takes by itself (tensor rebuilders, storages,
    OrderedDict); torch has no public list of them, and without it every global is named."""
    try:
        return set(torch._weights_only_unpickler._get_allowed_globals())
    except Exception:
        return set()


def _refusal_message(filename, unknown):
    legacy = '' if zipfile.is_zipfile(filename) else " (torch's legacy non-zip format)"
    return (
        f'{filename}{legacy} needs unpickling of globals that are not allowed: '
        f'{", ".join(unknown)}. Refusing to load it for safety (unpickling them could run '
        f'arbitrary code). Convert it to a plain state dict of tensors.{_sharded_hint(unknown)} '
        f'If you made this file yourself, you may trust it explicitly: '
        f'tools/convert_checkpoint.py --trust-pickle, or {TRUST_ENV}={filename} for load_from / '
        f'init_cfg (this runs any code stored in it).'
    )


def _sharded_hint(unknown) -> str:
    if not any(name.startswith('torch.distributed') for name in unknown):
        return ''
    return (
        " It holds one rank's shard of a distributed model (e.g. DINOv2's "
        'model_*.rank_*.pth, FSDP local state): convert the full teacher weights instead, '
        'which DINOv2 / DINOv3 training writes to eval/<iteration>/teacher_checkpoint.pth.'
    )


def _dcp_hint(folder) -> str:
    if not osp.isfile(osp.join(folder, '.metadata')):
        return ''
    return (
        ': a torch.distributed.checkpoint folder (as DINOv3 training writes to ckpt/<iteration>/), '
        'whose metadata only plain unpickling reads, so it is not read here. Convert the teacher '
        'that training writes to eval/<iteration>/teacher_checkpoint.pth '
        '(train.sharded_eval_checkpoint=false), or make one file yourself with '
        'torch.distributed.checkpoint.format_utils.dcp_to_torch_save'
    )
