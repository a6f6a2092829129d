"""How an option dict of a backbone is checked: each option dict is an `Options` table, every
key with its default and the values it takes (a `Kind`). Merging a config's dict into its table
is the one check of every key and value: an unknown key names the closest valid one, a value of
the wrong type or out of range names the key, the value and what is allowed. A key added to a
table is checked by the same code, with nothing written for it. The tables themselves are in
`options`.

Booleans must be real bools: ``--cfg-options model.backbone.skip.attn=off`` gives the string
'off', which is truthy, and would silently keep what it was meant to remove.
"""

from collections.abc import Sequence
from numbers import Real
from typing import Any, Callable, NamedTuple

from vitspec.errors import ConfigError, did_you_mean

__all__ = [
    'BLOCKS',
    'BOOL',
    'INDICES',
    'REQUIRED',
    'SIZE',
    'Kind',
    'Option',
    'Options',
    'block_set',
    'check_value',
    'either',
    'integer',
    'number',
    'one_of',
    'optional',
    'pair',
    'unknown_key_error',
]

REQUIRED = object()  # the default of an option that has none: it must be given


class Kind(NamedTuple):
    """The values an option takes: ``accepts(value, context)`` and ``allowed(context)``, the
    words for them; ``context`` holds what the backbone knows when it merges (``num_layers``)."""

    accepts: Callable[[Any, dict], bool]
    allowed: Callable[[dict], str]


class Option(NamedTuple):
    default: Any
    kind: Kind


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


BOOL = Kind(lambda v, _: isinstance(v, bool), lambda _: 'True or False')


def integer(low: int = None, high: int = None) -> Kind:
    """An int (not a bool) in ``low..high`` (both included; None: unbounded)."""

    def accepts(v, _):
        return _is_int(v) and (low is None or v >= low) and (high is None or v <= high)

    return Kind(accepts, lambda _: 'an int' + _range(low, high, '>=', '<='))


def number(low: float = None, high: float = None, low_open: bool = False) -> Kind:
    """An int or float in ``low..high`` (``low`` excluded when ``low_open``)."""

    def accepts(v, _):
        above = low is None or (v > low if low_open else v >= low)
        return _is_number(v) and above and (high is None or v <= high)

    return Kind(accepts, lambda _: 'a number' + _range(low, high, '>' if low_open else '>=', '<='))


def one_of(*choices) -> Kind:
    return Kind(lambda v, _: isinstance(v, str) and v in choices, lambda _: _either(choices))


def optional(kind: Kind) -> Kind:
    return Kind(
        lambda v, c: v is None or kind.accepts(v, c), lambda c: f'None or {kind.allowed(c)}'
    )


def pair(kind: Kind) -> Kind:
    """Two values of ``kind``, a list or a tuple (``--cfg-options`` gives lists)."""

    def accepts(v, c):
        return isinstance(v, (list, tuple)) and len(v) == 2 and all(kind.accepts(x, c) for x in v)

    return Kind(accepts, lambda c: f'a pair (first, last) of {kind.allowed(c)}')


def either(*kinds: Kind) -> Kind:
    """A value that one of ``kinds`` accepts."""
    return Kind(
        lambda v, c: any(k.accepts(v, c) for k in kinds),
        lambda c: ' or '.join(k.allowed(c) for k in kinds),
    )


# An image size: one int for a square, or (height, width)
SIZE = either(integer(1), pair(integer(1)))


def _indices_accept(v, context) -> bool:
    n = context['num_layers']
    sequence = isinstance(v, Sequence) and not isinstance(v, str)
    return sequence and all(_is_int(i) and -n <= i < n for i in v)


# Block indices in -num_layers..num_layers - 1 (-1: the last block): a list, a tuple, a range
INDICES = Kind(
    _indices_accept,
    lambda c: f'a list of block indices in {-c["num_layers"]}..{c["num_layers"] - 1}',
)

NAMED_BLOCKS = dict(all=1, first_third=3, first_half=2)  # the share of the blocks, 1 / n


def _blocks_accept(v, context) -> bool:
    n = context['num_layers']
    if v is None:
        return True
    if isinstance(v, str):
        return v in NAMED_BLOCKS
    if _is_int(v):
        return 0 <= v <= n
    return isinstance(v, (list, tuple)) and all(_is_int(i) and -n <= i < n for i in v)


def _blocks_allowed(context) -> str:
    n = context['num_layers']
    return (
        f'{_either(NAMED_BLOCKS)}, an int 0..{n} (that many blocks from the first), '
        f'a list of block indices in {-n}..{n - 1} ([-1]: the last block) or None (no block)'
    )


# Which blocks of ``num_layers`` an option reaches ('all', 'first_third', 'first_half', the
# first n, a list of indices, None for none): range-checked against the backbone's depth.
BLOCKS = Kind(_blocks_accept, _blocks_allowed)


class Options:
    """One option dict of a backbone: its keys (`Option`: default and `Kind`), and what a bare
    value of the dict means: ``off`` values (the technique is not used: merge gives None) and
    ``on`` values (the defaults). Reads as the dict of the defaults (``SKIP['blocks']``)."""

    def __init__(self, name: str, *, off=(None, False), on=(True,), **options: Option):
        self.name = name
        self.options = options
        self.off, self.on = tuple(off), tuple(on)

    def __getitem__(self, key):
        return self.options[key].default

    def __contains__(self, key) -> bool:
        return key in self.options

    def __iter__(self):
        return iter(self.options)

    def __len__(self) -> int:
        return len(self.options)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def keys(self):
        return self.options.keys()

    def items(self):
        return [(k, o.default) for k, o in self.options.items()]

    def merge(self, given, owner: str = 'SpecViT', **context):
        """The options in force for ``given`` (a dict, or a bare value of ``off`` / ``on``), each
        key and value checked; None when ``given`` is one of ``off``."""
        bare = [*self.off, *self.on]
        if not isinstance(given, dict):
            if any(given is b for b in bare):  # `is`: 0 and 1 are not False and True
                return (
                    None if any(given is b for b in self.off) else self.merge({}, owner, **context)
                )
            raise ConfigError(
                f'{owner} {self.name}={given!r}: must be a dict of its options '
                f'({", ".join(self.options)}), or {_either(bare)}'
            )
        for key in given:
            if key not in self.options:
                raise unknown_key_error(f'{owner} {self.name}', key, self.options)
        merged = {}
        for key, option in self.options.items():
            value = given.get(key, option.default)
            if value is REQUIRED:
                raise ConfigError(
                    f'{owner} {self.name}.{key} must be given: '
                    f'{option.kind.allowed(context)}, e.g. {self.name}=dict({key}=...)'
                )
            check_value(f'{owner} {self.name}.{key}', value, option.kind, **context)
            merged[key] = value
        return merged


def check_value(where: str, value, kind: Kind, **context) -> None:
    """ConfigError naming ``where``, ``value`` and what ``kind`` allows, unless it accepts it."""
    if kind.accepts(value, context):
        return
    hint = ''
    if isinstance(value, str) and kind.accepts(_as_bool(value), context):
        hint = (
            f' ({value!r} is a string; --cfg-options reads only true / false as a bool: '
            f'write {where.split()[-1]}={_as_bool(value)})'
        )
    raise ConfigError(f'{where}={value!r}: must be {kind.allowed(context)}{hint}')


def block_set(spec, num_layers: int, owner: str) -> set:
    """The block indices ``spec`` names (see BLOCKS), checked against ``num_layers``."""
    check_value(owner, spec, BLOCKS, num_layers=num_layers)
    if spec is None:
        return set()
    if isinstance(spec, str):
        return set(range(num_layers // NAMED_BLOCKS[spec]))
    if _is_int(spec):
        return set(range(spec))
    return {i % num_layers for i in spec}


def unknown_key_error(owner: str, key: str, valid) -> TypeError:
    hint = did_you_mean(key, valid) or f'valid: {", ".join(sorted(valid))}'
    return TypeError(f"{owner} got an unknown option '{key}'; {hint}")


def _range(low, high, low_sign: str, high_sign: str) -> str:
    if low is not None and high is not None:
        return f' {low_sign} {low} and {high_sign} {high}'
    if low is not None:
        return f' {low_sign} {low}'
    return f' {high_sign} {high}' if high is not None else ''


def _either(values) -> str:
    values = [repr(v) for v in values]
    return values[0] if len(values) == 1 else f'{", ".join(values[:-1])} or {values[-1]}'


def _as_bool(text: str):
    words = dict(off=False, no=False, false=False, on=True, yes=True, true=True)
    return words.get(text.strip().lower(), text)
