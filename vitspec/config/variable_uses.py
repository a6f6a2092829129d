"""Where a variable of a config file was used: the config keys whose value was computed from it,
read from the files' text (the config and its ``_base_`` chain), not recognised by value.

mmengine runs each file once, so ``val_interval=max_iters // 10`` or
``start_iters=[period, 2 * period]`` with ``period = _base_.max_iters // 6`` hold numbers that no
longer show where they came from; and a value shared by chance (``heads = 8`` and a batch size of
8) is no use. Each use is a dotted key as ``--cfg-options`` takes it (dicts by key, lists of
dicts by index) with the expression written there.
"""

import ast
from typing import Dict, List, NamedTuple, Tuple

from vitspec.config.chain import inherited_files

BASE = '_base_'


class Use(NamedTuple):
    key: str  # dotted, from a top-level key of the config
    expression: str  # the source text of the value that uses the variable
    via: Tuple[str, ...]  # the intermediate variables' definitions ('period = max_iters // 6')


def variable_uses(filename: str, name: str, cfg=None) -> List[Use]:
    """The uses of ``name`` in ``filename`` and its ``_base_`` files, through the variables
    computed from it, under every top-level key. ``cfg`` (the built config) places the items
    written after a ``*list`` in a list, counted from its end; without it they are left out."""
    found, base_uses = [], {}
    for path in reversed(inherited_files(filename)):  # bases first: `_base_.x` reads theirs
        with open(path, encoding='utf-8') as f:
            source = f.read()
        uses = _FileUses(source, name, base_uses, cfg).run()
        found += [
            Use('.'.join(k), e, v) for top, rel in uses.items() for k, e, v in _under(top, rel)
        ]
        base_uses = {**base_uses, **uses}
    unique = {}
    for use in found:
        unique.setdefault(use.key, use)
    return list(unique.values())


def _under(top: str, rel):
    for sub, expression, via in rel:
        yield (top, *sub), expression, via


_Rel = List[Tuple[Tuple[str, ...], str, Tuple[str, ...]]]


class _FileUses:
    """One file's top-level assignments, in order: for each assigned name, the sub-keys of its
    value that use the variable (or a variable computed from it)."""

    def __init__(self, source: str, name: str, base_uses: Dict[str, _Rel], cfg):
        self.source, self.cfg = source, cfg
        self.root = name
        self.base_uses = base_uses
        self.uses: Dict[str, _Rel] = {name: [((), name, ())]}

    def run(self) -> Dict[str, _Rel]:
        for node in ast.parse(self.source).body:
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                for label, value in _pairs(target, node.value):
                    self._assign(label, value)
        return {k: v for k, v in self.uses.items() if k != self.root}

    def _assign(self, label: str, value: ast.AST) -> None:
        if label == self.root:
            return  # a new value of the variable itself
        rel = list(self._walk(value, (label,)))
        if rel:
            self.uses[label] = [(sub[1:], e, v) for sub, e, v in rel]
        else:
            self.uses.pop(label, None)  # assigned again without the variable

    def _lookup(self, node) -> _Rel:
        if isinstance(node, ast.Name):
            return self.uses.get(node.id, [])
        if _is_base_attribute(node):
            if node.attr == self.root:
                return [((), f'{BASE}.{self.root}', ())]
            return self.base_uses.get(node.attr, [])
        return []

    def _walk(self, node, path):
        """(sub-key path, expression, via) of each use within ``node`` placed at ``path``."""
        if _is_dict_call(node):
            for arg in node.args:
                yield from self._walk(arg, path)
            for kw in node.keywords:
                yield from self._walk(kw.value, path if kw.arg is None else (*path, kw.arg))
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if key is None:
                    yield from self._walk(value, path)
                elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                    yield from self._walk(value, (*path, key.value))
                else:
                    yield from self._leaf(value, path)
        elif isinstance(node, (ast.List, ast.Tuple)) and any(map(_is_mapping, node.elts)):
            yield from self._items(node.elts, path)
        elif self._lookup(node):
            text = ast.get_source_segment(self.source, node)
            for sub, expression, via in self._lookup(node):
                if sub or expression == text:
                    yield (*path, *sub), expression, via
                else:  # a variable computed from it: say how
                    yield path, text, (*via, f'{text} = {expression}')
        else:
            yield from self._leaf(node, path)

    def _items(self, elements, path):
        starred = [i for i, e in enumerate(elements) if isinstance(e, ast.Starred)]
        for i, element in enumerate(elements):
            if isinstance(element, ast.Starred):
                yield from self._leaf(element, path)
                continue
            if not starred or i < starred[0]:
                index = i
            elif len(starred) == 1 and self.cfg is not None:
                length = _length_at(self.cfg, path)
                if length is None:
                    continue
                index = length - (len(elements) - i)
            else:
                continue  # its place depends on lists of unknown length
            yield from self._walk(element, (*path, str(index)))

    def _leaf(self, node, path):
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        bases = {n.attr for n in ast.walk(node) if _is_base_attribute(n)}
        derived = (names & self.uses.keys()) | (bases & ({self.root} | self.base_uses.keys()))
        if derived:
            via = tuple(
                f'{d} = {e}'
                for d in sorted(derived - {self.root})
                for sub, e, _ in (self.uses.get(d) or self.base_uses.get(d, []))[:1]
                if not sub
            )
            yield path, ast.get_source_segment(self.source, node), via


def _pairs(target, value):
    if isinstance(target, ast.Name):
        yield target.id, value
    elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
        if len(target.elts) == len(value.elts):
            for t, v in zip(target.elts, value.elts):
                yield from _pairs(t, v)


def _is_dict_call(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == 'dict'


def _is_mapping(node) -> bool:
    return _is_dict_call(node) or isinstance(node, ast.Dict)


def _is_base_attribute(node) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == BASE
    )


def _length_at(cfg, path):
    node = cfg
    for part in path:
        if isinstance(node, (list, tuple)):
            if not (part.isdigit() and int(part) < len(node)):
                return None
            node = node[int(part)]
        elif hasattr(node, 'keys') and part in node:  # a dict, ConfigDict or Config
            node = node[part]
        else:
            return None
    return len(node) if isinstance(node, (list, tuple)) else None
