"""Configs stay shallow, the mmseg way: a leaf inherits a recipe or a sibling plus fragments of
_base_/{models,datasets,schedules} and the runtime, a fragment inherits nothing or one thing, and
the median leaf is at most 3 levels of ``_base_`` deep (issue 38: it was 4, 5 files in a chain).
Bases in mmseg / mmdet (``mmseg::...``) count as levels."""

import ast
import os.path as osp
import statistics
from functools import cache
from pathlib import Path

from mmengine.config import Config

from tests.utils import ROOT

CONFIGS = ROOT / 'configs'


@cache
def bases(path: str) -> tuple:
    """The files a config names in ``_base_``, resolved as mmengine resolves them."""
    for node in ast.parse(Path(path).read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], 'id', None) == '_base_':
            names = ast.literal_eval(node.value)
            names = [names] if isinstance(names, str) else names
            return tuple(osp.abspath(Config._get_cfg_path(name, path)[0]) for name in names)
    return ()


@cache
def depth(path: str) -> int:
    """The longest chain of ``_base_`` links below ``path``."""
    return max((1 + depth(base) for base in bases(path)), default=0)


def leaves() -> list:
    """Every config of a dataset folder (as the config digests take them)."""
    return sorted(str(p) for p in CONFIGS.glob('*/*.py') if not p.parent.name.startswith('_'))


def test_the_median_leaf_is_at_most_three_levels_deep():
    depths = {Path(p).relative_to(CONFIGS).as_posix(): depth(p) for p in leaves()}
    assert len(depths) > 100
    assert statistics.median(depths.values()) <= 3, sorted(depths.items(), key=lambda x: -x[1])


def test_a_fragment_inherits_at_most_one_file():
    """Recipes (``_base_/recipes``) combine fragments; every other file under ``_base_``
    inherits nothing or one thing."""
    fragments = [p for p in (CONFIGS / '_base_').rglob('*.py') if p.parent.name != 'recipes']
    assert fragments
    many = [p.relative_to(CONFIGS).as_posix() for p in fragments if len(bases(str(p))) > 1]
    assert not many, f'fragments that inherit more than one file: {many}'
