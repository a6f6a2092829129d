"""A config and the files it inherits through ``_base_``, read as text without building it: for
the tools that read which fragments a config uses (model table, technique keys), now that a leaf
may inherit them from a sibling or a recipe fragment."""

import ast
import os.path as osp
import re

from mmengine.config import Config

BASE_KEY = '_base_'


def base_paths(tree: ast.Module, filename: str) -> list:
    """The files a parsed config names in ``_base_``, resolved as mmengine resolves them."""
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == BASE_KEY
        ):
            try:
                bases = ast.literal_eval(node.value)
            except ValueError:  # not a literal: mmengine will say so itself
                return []
            bases = [bases] if isinstance(bases, str) else list(bases)
            return [_resolve(base, filename) for base in bases if isinstance(base, str)]
    return []


def _resolve(base: str, filename: str) -> str:
    try:
        return osp.abspath(Config._get_cfg_path(base, filename)[0])
    except (ImportError, FileNotFoundError, ValueError):  # mmengine reports these itself
        return ''


def inherited_files(path) -> list:
    """``path`` first, then every file of its ``_base_`` chain, depth first, each once."""
    order, pending = [], [osp.abspath(path)]
    while pending:
        filename = pending.pop(0)
        if filename in order or not filename.endswith('.py') or not osp.isfile(filename):
            continue
        order.append(filename)
        with open(filename, encoding='utf-8') as f:
            pending[:0] = base_paths(ast.parse(f.read()), filename)
    return order


def chain_depth(path) -> int:
    """The longest path of ``_base_`` links from ``path`` down to a file that inherits nothing
    (a file in mmseg or mmdet counts as a level): 0 for a file without ``_base_``."""
    depth, level = 0, [osp.abspath(path)]
    while level:  # breadth first, one level of links per round; configs have no cycles
        below = []
        for filename in level:
            with open(filename, encoding='utf-8') as f:
                below += [b for b in base_paths(ast.parse(f.read()), filename) if b]
        depth, level = depth + bool(below), list(dict.fromkeys(below))
    return depth


def inherited_text(path) -> str:
    """The text of ``path`` and of every file it inherits, in ``inherited_files`` order."""
    texts = []
    for filename in inherited_files(path):
        with open(filename, encoding='utf-8') as f:
            texts.append(f.read())
    return '\n'.join(texts)


def base_names(text: str, folder: str) -> list:
    """Names of the fragments under ``_base_/models/<folder>/`` that a config's text inherits."""
    return re.findall(rf'{folder}/([\w.-]+)\.py', text)
