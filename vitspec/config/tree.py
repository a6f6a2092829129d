"""A config as a tree of dicts, lists and tuples (mmengine's Config and ConfigDict count as dicts):
plain copies, values at dotted paths, dotted keys to leaves, the keys where two trees differ, and
the canonical JSON form behind config digests. Every part of vitspec that walks a config uses
these.

A path names dict keys with dots and list items by index, as ``--cfg-options`` writes them
(``model.backbone.out_indices.0``) or in brackets (``train_pipeline[2].scale``);
``[type=RandomResize]`` selects the first dict of a list whose ``type`` is ``RandomResize``."""

import re


class _Absent:
    def __repr__(self):
        return '<absent>'


ABSENT = _Absent()  # what a tree holds at a key it does not have
_RAISE = object()
TOKEN = re.compile(r'([^.\[\]]+)|\[([^\]]+)\]')


def plain(value, keep_tuples: bool = False):
    """A copy of ``value`` with ConfigDicts as dicts and tuples as lists, as YAML writes them;
    ``keep_tuples``: tuples stay tuples (mmengine keeps both, and a model may tell them apart)."""
    if isinstance(value, dict):
        return {k: plain(v, keep_tuples) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        items = [plain(v, keep_tuples) for v in value]
        return type(value)(items) if keep_tuples else items
    return value


def get(tree, path: str, default=_RAISE):
    """The value at ``path``; KeyError naming the step that fails, unless a ``default`` is
    given."""
    node = tree
    try:
        for name, selector in TOKEN.findall(path):
            node = _child(node, name or selector, path, selected=not name)
    except KeyError:
        if default is _RAISE:
            raise
        return default
    return node


def set_value(tree, path: str, value) -> None:
    """Put ``value`` at ``path``; the path's parent must exist (KeyError if not)."""
    tokens = TOKEN.findall(path)
    parent = tree
    for name, selector in tokens[:-1]:
        parent = _child(parent, name or selector, path, selected=not name)
    name, selector = tokens[-1]
    key = name or selector
    parent[int(key) if isinstance(parent, list) else key] = value


def _child(node, key: str, path: str, selected: bool):
    if selected and '=' in key:  # [field=value]: the first dict of the list with that value
        field, want = key.split('=', 1)
        found = [x for x in node if isinstance(x, dict) and str(x.get(field)) == want]
        if not found:
            raise KeyError(f'{path}: no element with {field}={want}')
        return found[0]
    if isinstance(node, (list, tuple)):
        whole = key.isdigit() or (selected and key.lstrip('-').isdigit())  # [-1]: the last
        if whole and -len(node) <= int(key) < len(node):
            return node[int(key)]
        raise KeyError(f'{path}: no item {key} in a list of {len(node)}')
    if hasattr(node, 'keys') and not selected and key in node:
        return node[key]
    raise KeyError(f'{path}: no key {key!r}')


def flatten(tree, prefix: str = '') -> dict:
    """Dotted keys to leaves, list items by index; an empty dict or list is a leaf
    (``specialize=dict()`` switches a technique on). ``prefix`` ends with a dot."""
    if isinstance(tree, dict) and tree:
        return {
            k: v
            for key, value in tree.items()
            for k, v in flatten(value, f'{prefix}{key}.').items()
        }
    if isinstance(tree, (list, tuple)) and tree:
        return {
            k: v for i, value in enumerate(tree) for k, v in flatten(value, f'{prefix}{i}.').items()
        }
    return {prefix[:-1]: tree}


def differing(flat_a: dict, flat_b: dict, absent=ABSENT) -> list:
    """``(key, value in a, value in b)`` for each key of two flattened trees whose values
    differ, sorted; ``absent`` stands for the value of a key that one of them lacks."""
    return [
        (k, flat_a.get(k, absent), flat_b.get(k, absent))
        for k in sorted(flat_a.keys() | flat_b.keys())
        if flat_a.get(k, absent) != flat_b.get(k, absent)
    ]


def diff(before, after, prefix: str = '') -> list:
    """``['key: before -> after', ...]`` for every leaf value that differs, sorted by key, for
    people: lists and tuples of the same type and length are compared item by item (a pipeline
    step is named by its index), otherwise whole, and a value differs from one of another
    type."""
    if isinstance(before, dict) and isinstance(after, dict):
        lines = []
        for key in sorted(before.keys() | after.keys(), key=str):
            lines += diff(before.get(key, ABSENT), after.get(key, ABSENT), f'{prefix}{key}.')
        return lines
    same_sequence = isinstance(before, (list, tuple)) and type(before) is type(after)
    if same_sequence and len(before) == len(after):
        return [
            line
            for i, (a, b) in enumerate(zip(before, after))
            for line in diff(a, b, f'{prefix}{i}.')
        ]
    if before == after and type(before) is type(after):
        return []
    return [f'{prefix[:-1]}: {before!r} -> {after!r}']


def canonical(tree):
    """The tree as JSON holds it, for digests: keys as strings, a tuple as
    ``{'__tuple__': [...]}`` (kept apart from a list), anything JSON cannot hold as
    ``{'__repr__': repr(value)}``."""
    if isinstance(tree, dict):
        return {str(k): canonical(v) for k, v in tree.items()}
    if isinstance(tree, tuple):
        return {'__tuple__': [canonical(v) for v in tree]}
    if isinstance(tree, list):
        return [canonical(v) for v in tree]
    if tree is None or isinstance(tree, (bool, int, float, str)):
        return tree
    return {'__repr__': repr(tree)}
