"""Checks one reproduction-ledger file against its schema (configs/reproductions.schema.yaml
describes the language): typed keys, required and unknown keys, enums, and the references by id
that the caller resolves across files. Our own because the ledger needs only this subset and
jsonschema is not a dependency."""

import re
from typing import NamedTuple

TYPES = {
    'str': str,
    'number': (int, float),
    'bool': bool,
    'list': list,
    'record': dict,
    'mapping': dict,
}


class Reference(NamedTuple):
    """A value that must be an id of ``table`` (sources, protocols, config), found at ``path``."""

    path: str
    table: str
    value: object


def check_file(data, schema: dict, kind: str) -> tuple:
    """``(problems, references)`` of one file's data against ``schema['files'][kind]``: each
    problem is ``'key.path: message'``; references are left to the caller."""
    problems, references = [], []
    _check(data, schema['files'][kind], schema.get('definitions', {}), '', problems, references)
    return problems, references


def _resolve(node: dict, definitions: dict) -> dict:
    while 'use' in node:
        rest = {k: v for k, v in node.items() if k != 'use'}
        node = {**definitions[node['use']], **rest}
    return node


def _join(path: str, key) -> str:
    return f'{path}.{key}' if path else str(key)


def _is(value, kind: str) -> bool:
    if kind == 'any':
        return True
    if isinstance(value, bool):
        return kind == 'bool'
    return isinstance(value, TYPES[kind])


def _expected(node: dict) -> str:
    accepted = [node.get('type', 'any'), *(repr(v) for v in node.get('or', []))]
    return ' or '.join(accepted + (['null'] if node.get('nullable') else []))


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + '...'


def _check(value, node, definitions, path, problems, references):
    node = _resolve(node, definitions)
    where = path or '(top level)'
    if value is None and node.get('nullable') or value in node.get('or', []):
        return
    kind = node.get('type', 'any')
    if not _is(value, kind):
        name = type(value).__name__
        problems.append(f'{where}: expected {_expected(node)}, got {name} {_short(value)}')
        return
    if 'enum' in node and value not in node['enum']:
        problems.append(f'{where}: {value!r} is not one of {", ".join(map(str, node["enum"]))}')
    if 'ref' in node:
        references.append(Reference(where, node['ref'], value))
    if kind == 'record':
        _check_record(value, node, definitions, path, problems, references)
    elif kind == 'mapping':
        pattern = node.get('key_pattern')
        for key, item in value.items():
            if pattern and not (isinstance(key, str) and re.fullmatch(pattern, key)):
                problems.append(f'{where}: key {key!r} does not match {pattern}')
            _check(item, node['values'], definitions, _join(path, key), problems, references)
    elif kind == 'list' and 'items' in node:
        for index, item in enumerate(value):
            _check(item, node['items'], definitions, f'{path}[{index}]', problems, references)


def _check_record(value: dict, node, definitions, path, problems, references):
    where = path or '(top level)'
    keys = node.get('keys', {})
    problems += [f'{where}: unknown key {key!r}' for key in value if key not in keys]
    for key, sub in keys.items():
        sub = _resolve(sub, definitions)
        unless = sub.get('required_unless', {})
        excused = unless and all(value.get(k) == v for k, v in unless.items())
        absent = key not in value or value[key] is None and not sub.get('nullable')
        if (sub.get('required') or unless) and not excused and absent:
            reason = ''.join(f' (unless {k} is {v!r})' for k, v in unless.items())
            reason += ' (it is null)' if key in value else ''
            problems.append(f'{where}: missing key {key!r}{reason}')
        elif key in value and not (excused and value[key] is None):
            _check(value[key], sub, definitions, _join(path, key), problems, references)
    together = node.get('together', [])
    given = [key for key in together if key in value]
    if given and len(given) < len(together):
        missing = [key for key in together if key not in value]
        problems.append(f'{where}: {", ".join(missing)} must be given with {", ".join(given)}')
