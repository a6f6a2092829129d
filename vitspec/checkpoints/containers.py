"""The weights inside the files training scripts write, picked out and freed of wrapper names.

What the common scripts save (read from each repository):

- MAE ``util/misc.py save_model``: ``{'model', 'optimizer', 'epoch', 'scaler', 'args'}``
- DeiT / CaiT ``main.py``: ``{'model', 'optimizer', 'lr_scheduler', 'epoch', 'model_ema',
  'scaler', 'args'}``
- timm ``utils/checkpoint_saver.py``: ``{'epoch', 'arch', 'state_dict', 'optimizer', 'version',
  'args', 'amp_scaler', 'state_dict_ema', 'metric', 'saver'}``
- DINOv2 / DINOv3 ``train/train.py do_test``: ``eval/<iteration>/teacher_checkpoint.pth`` =
  ``{'teacher': {'backbone.*', 'dino_head.*', 'ibot_head.*'}}``, DINOv2's blocks chunked as
  ``blocks.<chunk>.<index>`` (the dinov2 format renames them)
- a whole self-distillation model: ``{'model': {'student.backbone.*', 'teacher.backbone.*',
  ...}, 'iteration', 'optimizer'}`` (DINOv3 also names its teacher ``model_ema``)
- mmengine: ``{'meta', 'state_dict': {'backbone.*', 'decode_head.*', ...}, ...}``

The trained weights are the default (``model`` / ``state_dict``), as timm's ``load_checkpoint``
and DeiT's evaluation read them; ``use_ema`` picks the EMA copy (``state_dict_ema`` /
``model_ema``). Of a student / teacher pair the teacher is the default, the network DINOv2 and
DINOv3 release; ``branch='student'`` picks the other.
"""

from typing import NamedTuple

import torch
from mmengine.logging import print_log

from vitspec.errors import CheckpointError, ConfigError

ENTRY_KEYS = ('state_dict', 'model', 'module')
EMA_KEYS = ('state_dict_ema', 'model_ema')
BRANCH_PREFIXES = dict(teacher=('teacher.', 'model_ema.'), student=('student.',))
# name parts that torch.compile, activation checkpointing and FSDP insert into module paths
WRAPPER_PARTS = frozenset({'_orig_mod', '_checkpoint_wrapped_module', '_fsdp_wrapped_module'})


class Picked(NamedTuple):
    state_dict: dict
    where: str  # which part of the file the weights came from, for the user


def pick_weights(checkpoint, use_ema: bool = False, branch: str = 'teacher') -> Picked:
    """The tensor dict of the network in a training checkpoint, in the network's own names."""
    if branch not in BRANCH_PREFIXES:
        raise ConfigError(f'branch must be one of {", ".join(BRANCH_PREFIXES)}, not {branch!r}')
    sd, where = _entry(checkpoint, use_ema, branch)
    sd = {'.'.join(p for p in k.split('.') if p not in WRAPPER_PARTS): v for k, v in sd.items()}
    sd = _strip_common(sd, 'module.')  # DistributedDataParallel
    sd, where = _branch(sd, where, branch)
    sd = _strip_common(sd, 'backbone.')
    if any(k.startswith('backbone.') for k in sd):  # a whole detector / segmentor / SSL branch
        sd = {k[len('backbone.') :]: v for k, v in sd.items() if k.startswith('backbone.')}
        where += ' backbone.*'
    if where != 'checkpoint':
        print_log(f'weights taken from {where}', logger='current')
    return Picked(sd, where)


def unwrap_state_dict(checkpoint, use_ema: bool = False, branch: str = 'teacher') -> dict:
    """The tensor dict inside a training checkpoint, with wrapper prefixes removed."""
    return pick_weights(checkpoint, use_ema, branch).state_dict


def _is_weights(node) -> bool:
    return isinstance(node, dict) and bool(node) and all(torch.is_tensor(v) for v in node.values())


def _entry(checkpoint, use_ema: bool, branch: str):
    node, where = checkpoint, 'checkpoint'
    if use_ema:
        key = next((k for k in EMA_KEYS if isinstance(_get(node, k), dict)), None)
        if key is None:
            raise CheckpointError(
                f'EMA weights were asked for (use_ema / --use-ema) but the checkpoint has none '
                f'(looked for {", ".join(EMA_KEYS)}); it holds: {_keys(node)}'
            )
        node, where = node[key], f"{where}['{key}']"
    looked = (*ENTRY_KEYS, branch)
    while not _is_weights(node):
        key = next((k for k in looked if isinstance(_get(node, k), dict)), None)
        if key is None:
            raise CheckpointError(
                f'no state dict of tensors found in the checkpoint (looked under '
                f'{", ".join(looked)}); {where} holds: {_keys(node)}'
            )
        node, where = node[key], f"{where}['{key}']"
    return node, where


def _branch(sd: dict, where: str, branch: str):
    prefixes = {p for options in BRANCH_PREFIXES.values() for p in options}
    present = sorted(p for p in prefixes if any(k.startswith(p) for k in sd))
    if not present:
        return sd, where
    prefix = next((p for p in BRANCH_PREFIXES[branch] if p in present), None)
    if prefix is None:
        raise CheckpointError(
            f'{where} holds the networks {", ".join(p + "*" for p in present)} but no {branch} '
            f'({", ".join(p + "*" for p in BRANCH_PREFIXES[branch])})'
        )
    picked = {k[len(prefix) :]: v for k, v in sd.items() if k.startswith(prefix)}
    return picked, f'{where} {prefix}*'


def _strip_common(sd: dict, prefix: str) -> dict:
    if sd and all(k.startswith(prefix) for k in sd):
        return {k[len(prefix) :]: v for k, v in sd.items()}
    return sd


def _get(node, key):
    return node.get(key) if isinstance(node, dict) else None


def _keys(node) -> str:
    if not isinstance(node, dict):
        return f'a {type(node).__name__}'
    keys = list(node)
    shown = ', '.join(map(str, keys[:12]))
    return shown + (f', ... ({len(keys)} keys)' if len(keys) > 12 else '') or 'nothing'
