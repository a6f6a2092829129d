"""Configs stay shallow, the mmseg way. A leaf (a config of a dataset folder) inherits recipes
and fragments of ``_base_/``; it inherits another leaf only as a variant: the same experiment
with one change, which its name states. A fragment inherits nothing or one thing.

Depth: the longest path of ``_base_`` links from the leaf down to a file that inherits nothing;
a file in mmseg or mmdet (``mmseg::...``) counts as a level. No leaf is deeper than 4.

A variant (a leaf that inherits a leaf):
- inherits exactly one leaf, and that leaf inherits no leaf (no variant of a variant);
- its other ``_base_`` files are model fragments (``_base_/models/``: the technique, the
  backbone it applies to) or the settings a probe grid sweeps (``_base_/probe_grids/``);
- its name is the inherited leaf's name with one change: one run of at most 3 name tokens (the
  name split at ``_`` and ``-``) inserted or replaced (``-plain``, ``_gradloss-fixed``,
  ``12e`` -> ``50e``)."""

import ast
import difflib
import os.path as osp
import re
from functools import cache
from pathlib import Path

from tests.utils import ROOT
from vitspec.config.chain import base_paths, chain_depth
from vitspec.config.digest import leaf_configs

CONFIGS = ROOT / 'configs'
MAX_DEPTH = 4
MAX_CHANGED_TOKENS = 3


@cache
def bases(path: str) -> tuple:
    """The files a config names in ``_base_``, resolved as mmengine resolves them."""
    return tuple(base_paths(ast.parse(Path(path).read_text()), path))


def leaves() -> list:
    return [osp.abspath(p) for p in leaf_configs(CONFIGS)]


def name(path: str) -> str:
    return Path(path).as_posix().split('/configs/')[-1]


def changed_runs(variant: str, leaf: str) -> list:
    """The runs of name tokens that differ between two config names, as
    ``(tokens of leaf, tokens of variant)``."""
    a, b = (re.split('[_-]', Path(p).stem) for p in (leaf, variant))
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    return [(a[i1:i2], b[j1:j2]) for op, i1, i2, j1, j2 in matcher.get_opcodes() if op != 'equal']


def variant_problems(variant: str, leaf_set: set) -> list:
    """What keeps ``variant`` (a leaf inheriting a leaf) from being one, by the rules above."""
    inherited = [b for b in bases(variant) if b in leaf_set]
    problems = []
    if len(inherited) > 1:
        problems.append(f'inherits {len(inherited)} leaves')
    parent = inherited[0]
    if any(b in leaf_set for b in bases(parent)):
        problems.append(f'inherits {name(parent)}, itself a variant')
    others = [b for b in bases(variant) if b not in leaf_set]
    not_models = [b for b in others if not re.search('/configs/_base_/(models|probe_grids)/', b)]
    if not_models:
        problems.append(f'also inherits files other than model fragments: {not_models}')
    runs = changed_runs(variant, parent)
    if len(runs) != 1 or max(len(runs[0][0]), len(runs[0][1])) > MAX_CHANGED_TOKENS:
        problems.append(f'its name is not {name(parent)} with one change: {runs}')
    return problems


def test_no_leaf_is_deeper_than_four_levels_of_base():
    depths = {name(p): chain_depth(p) for p in leaves()}
    assert len(depths) > 100
    deep = {k: v for k, v in depths.items() if v > MAX_DEPTH}
    assert not deep, f'leaves deeper than {MAX_DEPTH} levels of _base_: {deep}'


def test_a_leaf_inherits_a_leaf_only_as_a_variant_with_one_change():
    all_leaves = leaves()
    leaf_set = set(all_leaves)
    variants = [p for p in all_leaves if any(b in leaf_set for b in bases(p))]
    assert variants  # the -plain / -spec twins, the gradloss-fixed and train-mode-quirk ones
    problems = {name(v): variant_problems(v, leaf_set) for v in variants}
    assert not {k: v for k, v in problems.items() if v}


def test_the_name_rule_tells_one_change_from_several():
    base = 'lin4_vit-l14-dinov2_8xb2-38k_nyu-416x544.py'
    assert len(changed_runs('lin4_vit-l14-dinov2-plain_8xb2-38k_nyu-416x544.py', base)) == 1
    assert len(changed_runs('lin4_vit-l14-dinov2_8xb2-12k_nyu-416x544.py', base)) == 1
    assert len(changed_runs('lin1_vit-l14-dinov2-plain_8xb2-38k_nyu-416x544.py', base)) == 2


def test_variant_problems_names_each_broken_rule(tmp_path):
    folder, models = tmp_path / 'configs' / 'nyu', tmp_path / 'configs' / '_base_' / 'models'
    folder.mkdir(parents=True)
    models.mkdir(parents=True)
    (models / 'plain.py').write_text('technique = dict()\n')
    (tmp_path / 'configs' / '_base_' / 'recipe.py').write_text('x = 1\n')
    files = {
        'lin4_s14_38k.py': "'../_base_/recipe.py'",
        'lin4_s14-plain_38k.py': "['./lin4_s14_38k.py', '../_base_/models/plain.py']",
        'lin1_s14-spec_38k.py': "['./lin4_s14-plain_38k.py', '../_base_/recipe.py']",
    }
    for filename, base in files.items():
        (folder / filename).write_text(f'_base_ = {base}\n')
    leaf_set = {str(folder / filename) for filename in files}
    assert variant_problems(str(folder / 'lin4_s14-plain_38k.py'), leaf_set) == []
    problems = variant_problems(str(folder / 'lin1_s14-spec_38k.py'), leaf_set)
    assert [p.split(':')[0].split(' ')[0] for p in problems] == ['inherits', 'also', 'its']


def test_a_fragment_inherits_at_most_one_file():
    """Recipes (``_base_/recipes``) combine fragments; every other file under ``_base_``
    inherits nothing or one thing."""
    fragments = [p for p in (CONFIGS / '_base_').rglob('*.py') if p.parent.name != 'recipes']
    assert fragments
    many = [p.relative_to(CONFIGS).as_posix() for p in fragments if len(bases(str(p))) > 1]
    assert not many, f'fragments that inherit more than one file: {many}'
