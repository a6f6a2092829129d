"""``--cfg-options`` merged into a config, each value checked against the one it replaces.

mmengine's DictAction turns ``KEY=VALUE`` into a number, bool, None, list or tuple where it can
and leaves the rest a string; ``Config.merge_from_dict`` then accepts any value for any key, so
``train_cfg.max_iters=abc`` only fails somewhere inside the run, without naming the key.
"""

import reprlib
from numbers import Number

from mmengine.config import Config

from vitspec.config.tree import ABSENT, get, plain
from vitspec.config.variables import reach_targets

SHORT = reprlib.Repr()  # a config's dicts shown one level deep
SHORT.maxlevel, SHORT.maxdict, SHORT.maxstring = 1, 3, 40


def merge_cfg_options(cfg: Config, options: dict) -> Config:
    """Merge ``options`` into ``cfg``; TypeError naming the key when a value has a kind the
    config's value at that key cannot be replaced by (see ``kind_mismatch``). A variable of the
    config file is carried to its copies (``data_root``) or refused (see ``reach_targets``)."""
    options = reach_targets(cfg, options)
    before = {key: value_at(cfg, key) for key in options}
    cfg.merge_from_dict(options)
    for key, old in before.items():
        problem = find_mismatch(key, old, value_at(cfg, key))
        if problem:
            raise TypeError(f'--cfg-options {problem}')
    return cfg


def find_mismatch(key: str, old, new):
    """``'key=new: ...'`` for the first value under ``key`` whose kind does not fit the old
    one, looking into dicts key by key and into sequences item by item; None if all fit."""
    reason = kind_mismatch(old, new)
    if reason:
        return f'{key}={SHORT.repr(new)}: {reason}'
    if isinstance(old, dict) and isinstance(new, dict):
        pairs = [(f'{key}.{k}', old[k], new[k]) for k in new if k in old]
    elif isinstance(old, (list, tuple)) and isinstance(new, (list, tuple)):
        pairs = [(f'{key}.{i}', o, n) for i, (o, n) in enumerate(zip(old, new))]
    else:
        pairs = []
    for sub_key, sub_old, sub_new in pairs:
        problem = find_mismatch(sub_key, sub_old, sub_new)
        if problem:
            return problem
    return None


def kind_mismatch(old, new):
    """Why ``new`` cannot replace ``old``, or None. Allowed: anything where the config had no
    value or None, None itself, numbers for numbers (int, float, bool), anything for a string
    (e.g. ``loss_scale='dynamic'`` -> 512.0), a number for a list (``crop_size=512``)."""
    if old is ABSENT or old is None or new is None or isinstance(old, str):
        return None
    was = f'the config has {SHORT.repr(old)} ({type(old).__name__}) here'
    if isinstance(old, Number):
        if isinstance(new, Number):
            return None
        expected = 'a number' if not isinstance(old, bool) else 'True or False'
        return f'{was}; expected {expected}, got {type(new).__name__}'
    if isinstance(old, dict):
        if isinstance(new, dict):
            return None
        return f'{was}; expected a dict (dict(...)) or a key below it, got {type(new).__name__}'
    if isinstance(old, (list, tuple)):
        if isinstance(new, (list, tuple, Number)):
            return None
        return f'{was}; expected a list or tuple, got {type(new).__name__}'
    return None


def value_at(cfg, key: str):
    """A copy of the value at a dotted key (list items by index, as merge_from_dict takes
    them), tuples kept, since merging changes the config in place; ABSENT where there is none."""
    return plain(get(cfg, key, ABSENT), keep_tuples=True)
