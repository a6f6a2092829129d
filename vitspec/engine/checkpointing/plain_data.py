"""A training checkpoint as plain data: what ``torch.load(path, weights_only=True)`` reads with no
allow-list, so that mmseg's ``init_model`` / ``MMSegInferencer`` and mmdet's ``DetInferencer``
load vitspec's checkpoints as they load their own (mmengine's ``load_checkpoint`` calls
``torch.load`` without ``weights_only``, which is True by default from torch 2.6).

mmengine's Runner stores its message hub in every checkpoint: one ``HistoryBuffer`` per logged
scalar (numpy arrays of values and counts inside) and numpy scalars in the runtime info (the
ETA). Each is written as a dict of tensors, numbers and strings tagged with ``TYPE_KEY``, and
made again, of the same type, dtype and values, when a checkpoint is loaded, so a resumed run
continues from the very message hub the interrupted run saved. A checkpoint written before
holds the objects themselves; they pass through unchanged.
"""

import copy

import numpy as np
import torch
from mmengine.logging import HistoryBuffer

TYPE_KEY = '__vitspec_plain_type__'
HISTORY_BUFFER, ARRAY, SCALAR = 'mmengine.HistoryBuffer', 'numpy.ndarray', 'numpy.scalar'
ATOMS = (str, bytes, int, float, bool, complex, type(None), torch.Tensor)


def to_plain_data(obj):
    """``obj`` with every HistoryBuffer, numpy array and numpy scalar in it replaced by a tagged
    dict of plain data; containers without any are returned as they are (the same object)."""
    if isinstance(obj, HistoryBuffer):
        log_history, count_history = obj.data
        return {
            TYPE_KEY: HISTORY_BUFFER,
            'log_history': _plain_array(log_history),
            'count_history': _plain_array(count_history),
            'max_length': int(obj.max_length),
        }
    if isinstance(obj, np.ndarray):
        return {TYPE_KEY: ARRAY, **_plain_array(obj)}
    if isinstance(obj, np.generic):
        return {TYPE_KEY: SCALAR, **_plain_array(np.asarray(obj))}
    return _map_children(obj, to_plain_data)


def from_plain_data(obj):
    """The inverse of ``to_plain_data``: tagged dicts made into the objects they were written
    from; anything else (a checkpoint written before, with the objects themselves) unchanged."""
    if isinstance(obj, dict) and obj.get(TYPE_KEY) is not None:
        kind = obj[TYPE_KEY]
        if kind == HISTORY_BUFFER:
            return HistoryBuffer(
                _array(obj['log_history']), _array(obj['count_history']), obj['max_length']
            )
        if kind == ARRAY:
            return _array(obj)
        if kind == SCALAR:
            return _array(obj)[()]
        raise ValueError(f'a checkpoint entry tagged {TYPE_KEY}={kind!r}, which is unknown')
    return _map_children(obj, from_plain_data)


def store_as_plain_data(checkpoint: dict) -> None:
    """In place, at the top level: what the Runner is about to save."""
    for key, value in list(checkpoint.items()):
        checkpoint[key] = to_plain_data(value)


def restore_objects(checkpoint: dict) -> None:
    """In place, at the top level: what the Runner has just loaded (``Runner.resume`` reads the
    message hub from the same dict afterwards)."""
    for key, value in list(checkpoint.items()):
        checkpoint[key] = from_plain_data(value)


def _plain_array(array: np.ndarray) -> dict:
    """dtype, shape and the values: a tensor of the same dtype where torch has one (every number
    type), else a (nested) list of Python values."""
    try:
        data = torch.from_numpy(array.copy(order='C'))
    except TypeError:  # strings, objects, non-native byte order
        data = to_plain_data(array.tolist())
    return dict(dtype=array.dtype.str, shape=list(array.shape), data=data)


def _array(plain: dict) -> np.ndarray:
    data = plain['data']
    values = data.cpu().numpy() if torch.is_tensor(data) else from_plain_data(data)
    return np.array(values, dtype=np.dtype(plain['dtype'])).reshape(plain['shape'])


def _map_children(obj, convert):
    """``obj`` with ``convert`` applied to the values of a dict and the items of a list or
    tuple; a (shallow) copy only where something changed, of the same type (a state dict's
    OrderedDict keeps its ``_metadata``)."""
    if isinstance(obj, ATOMS):
        return obj
    if isinstance(obj, dict):
        changed = {key: convert(value) for key, value in obj.items()}
        changed = {key: new for key, new in changed.items() if new is not obj[key]}
        if not changed:
            return obj
        copied = copy.copy(obj)
        copied.update(changed)
        return copied
    if isinstance(obj, (list, tuple)):
        items = [convert(item) for item in obj]
        if all(new is old for new, old in zip(items, obj)):
            return obj
        if type(obj) in (list, tuple):
            return type(obj)(items)
        return type(obj)(*items) if hasattr(obj, '_fields') else type(obj)(items)
    return obj
