"""A built config as Python text, each value with a ``# from FILE`` comment naming its origin
(origins.py): on every top-level key, then only where a value's origin differs from that of the
dict or list holding it, so a block set by one file carries one comment. The origin of a dict
or list is the one most of its values have; one whose values all have one origin is written on
one line where it fits."""

from collections import Counter

LINE = 100  # a list or tuple of plain values that fits stays on one line
INDENT = '    '


def annotated_text(cfg: dict, origins: dict, name=str) -> str:
    """``cfg`` (a built config as plain dicts) as ``key = value`` lines; ``origins``: dotted key
    to file (value_origins), ``name``: how a file is written in a comment."""
    lines = []
    for key, value in cfg.items():
        lines += _node(f'{key} = ', value, str(key), None, 0, origins, name)
    return '\n'.join(lines)


def _node(lead: str, value, path: str, outer, depth: int, origins: dict, name) -> list:
    """The lines of one value, ``lead`` (``key=`` or ``key = ``) before it; ``outer``: the origin
    of what holds it (None at the top)."""
    counts = _origins_at(path, origins)
    origin = counts.most_common(1)[0][0] if counts else None
    note = f'  # from {name(origin)}' if origin != outer and origin is not None else ''
    pad, tail = INDENT * depth, ',' if depth else ''
    line = f'{pad}{lead}{inline(value)}{tail}'
    is_container = isinstance(value, (dict, list, tuple)) and value
    if not is_container or (len(counts) <= 1 and len(line) <= LINE):
        return [f'{line}{note}']
    if isinstance(value, dict):
        named = _named(value)
        opening, closing = ('dict(', ')') if named else ('{', '}')
        items = [(f'{k}=' if named else f'{k!r}: ', v, f'{path}.{k}') for k, v in value.items()]
    else:
        opening, closing = ('[', ']') if isinstance(value, list) else ('(', ')')
        items = [('', v, f'{path}.{i}') for i, v in enumerate(value)]
    lines = [f'{pad}{lead}{opening}{note}']
    for inner, item, item_path in items:
        lines += _node(inner, item, item_path, origin, depth + 1, origins, name)
    return [*lines, f'{pad}{closing}{tail}']


def inline(value) -> str:
    """``value`` as Python on one line, dicts written ``dict(key=value)`` where they can be."""
    if isinstance(value, dict):
        if _named(value):
            return f'dict({", ".join(f"{k}={inline(v)}" for k, v in value.items())})'
        return f'{{{", ".join(f"{k!r}: {inline(v)}" for k, v in value.items())}}}'
    if isinstance(value, list):
        return f'[{", ".join(inline(v) for v in value)}]'
    if isinstance(value, tuple):
        return f'({", ".join(inline(v) for v in value)}{"," if len(value) == 1 else ""})'
    return repr(value)


def _named(value: dict) -> bool:
    return all(isinstance(k, str) and k.isidentifier() for k in value)


def _origins_at(path: str, origins: dict) -> Counter:
    """How many values at or below ``path`` each origin has, in key order."""
    if path in origins:
        return Counter([origins[path]])
    return Counter(origin for key, origin in origins.items() if key.startswith(f'{path}.'))
