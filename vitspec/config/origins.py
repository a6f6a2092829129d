"""Where each value of a built config came from: the file of its ``_base_`` chain that set it,
or ``--cfg-options``; for tools/print_config.py.

A value's origin is the last file, in mmengine's merge order, that set or changed it: each file
of the chain is built on its own, and a value that a file's build holds and its merged bases do
not (or hold with another value or type) is that file's. A value a file copies into a key of its
own (``backbone=dict(_base_.backbone, ...)``) is named by that file, which wrote the key. Values
are the leaves of ``tree.flatten`` (dotted keys, list items by index).
"""

import ast
import os.path as osp
import re

from mmengine.config import Config

from vitspec.config.chain import base_paths
from vitspec.config.tree import ABSENT, TOKEN, flatten, get
from vitspec.errors import ConfigKeyError, did_you_mean

CFG_OPTIONS = '--cfg-options'
PACKAGE_CONFIG = re.compile(r'.*/(\w+)/\.mim/configs/(.+)$')  # mmseg's / mmdet's own configs


def value_origins(path) -> dict:
    """``{dotted key: file}`` for every value of the config built from ``path``."""
    return _origins(osp.abspath(path), {})[1]


def _origins(filename: str, done: dict) -> tuple:
    """``(flattened build, origins)`` of one file, its bases' from ``done``."""
    if filename not in done:
        with open(filename, encoding='utf-8') as f:
            bases = base_paths(ast.parse(f.read()), filename)
        merged, merged_origins = {}, {}
        for base in bases:
            flat, origins = _origins(base, done)
            merged.update(flat)
            merged_origins.update(origins)
        flat = flatten(Config.fromfile(filename, import_custom_modules=False).to_dict())
        done[filename] = (
            flat,
            {
                key: merged_origins[key] if same(merged.get(key, ABSENT), value) else filename
                for key, value in flat.items()
            },
        )
    return done[filename]


def same(a, b) -> bool:
    """Equal and of one type (``1`` is not ``1.0`` nor ``True``, ``[]`` is not ``()``)."""
    return type(a) is type(b) and a == b


def with_options(before: dict, after: dict, origins: dict) -> dict:
    """``origins`` with ``--cfg-options`` as the origin of every value of ``after`` (the build
    with the options merged) that ``before`` does not hold alike."""
    before, after = flatten(before), flatten(after)
    return {
        key: origins[key] if same(before.get(key, ABSENT), value) else CFG_OPTIONS
        for key, value in after.items()
    }


def check_option_keys(cfg, options: dict) -> None:
    """ConfigKeyError naming the first ``--cfg-options`` key whose parent the config does not
    have (``modle.backbone.x``) and the closest key where it stops; a new key below one the
    config has (``model.backbone.new_option``) is fine, as is a new top-level key."""
    for key in options:
        node, walked = cfg, ''
        for name, selector in TOKEN.findall(key.rpartition('.')[0]):
            step = name or f'[{selector}]'
            try:
                node = get(node, step)
            except KeyError as exc:
                keys = [str(k) for k in node] if hasattr(node, 'keys') else []
                hint = did_you_mean(name, keys) if name else ''
                where = f'under {walked!r}' if walked else 'at the top level'
                raise ConfigKeyError(
                    f'{CFG_OPTIONS} {key}: the config has no {step!r} {where} ({exc.args[0]})'
                    + (f'; {hint}' if hint else '')
                ) from None
            walked += step if selector or not walked else f'.{step}'


def display_name(filename: str, root=None) -> str:
    """A file as people name it: ``mmseg::_base_/...`` for a config of mmseg or mmdet, a path
    relative to ``root`` (default: the current folder) for one below it, else the path."""
    if filename == CFG_OPTIONS:
        return filename
    package = PACKAGE_CONFIG.match(filename.replace(osp.sep, '/'))
    if package:
        return f'{package.group(1)}::{package.group(2)}'
    relative = osp.relpath(filename, root or osp.curdir)
    return filename if relative.startswith('..') else relative
