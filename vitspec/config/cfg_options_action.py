"""``--cfg-options`` read by mmengine's DictAction, with what it gets wrong said or avoided.

mmengine's parser removes every space of a value (``data_root=/my data`` becomes ``/mydata``),
recurses without end on a call with two arguments inside a list
(``custom_hooks=[dict(type='EMAHook', momentum=0.001)]``: RecursionError) and reads a call with
one argument as a string (``[dict(type=EMAHook)]``: ``['dict(type=EMAHook)']``). Here a single
value with spaces is kept as given; spaces inside list items, ``dict(...)`` and a pair without
``=`` (what the shell leaves of an unquoted value with a space) are errors that say what to do.
"""

import argparse
import copy
import re

from mmengine.config import DictAction

SEPARATORS = ',[]()'
# What DictAction reads, for the errors below.
ACCEPTED = (
    "mmengine's --cfg-options parser reads numbers, True / False, None, strings, and lists "
    '[a,b] or tuples (a,b) of them, nested; not dict(...) or any other Python expression'
)
CALL = re.compile(r'^\s*dict\s*\(')


class CfgOptionsAction(DictAction):
    """DictAction for ``KEY=VALUE`` pairs; argparse errors name the pair and the fix."""

    def __call__(self, parser, namespace, values, option_string=None):
        options = copy.copy(getattr(namespace, self.dest, None) or {})
        previous = None
        for pair in values or ():
            if '=' not in pair:
                raise argparse.ArgumentError(self, _no_equals(pair, previous))
            key, value = pair.split('=', maxsplit=1)
            options[key] = self.parse_value(key, value)
            previous = pair
        setattr(namespace, self.dest, options)

    def parse_value(self, key: str, value: str):
        if has_inner_space(value):
            if is_single_value(value):
                return self._parse_int_float_bool(value.strip().strip('\'"'))
            raise argparse.ArgumentError(
                self,
                f"{key}={value}: mmengine's parser removes the spaces inside list and tuple "
                f'items ({value.replace(" ", "")!r}). Set such an item by its index '
                f"('{key}.0=a value with spaces', for an item the config has), or in a config "
                f"that inherits this one (_base_ = ['CONFIG'])",
            )
        try:
            parsed = self._parse_iterable(value)
        except RecursionError:  # dict(a=1, b=2) inside brackets
            raise argparse.ArgumentError(self, _not_readable(key, value)) from None
        if _holds_call(parsed):  # dict(a=1), read as a string
            raise argparse.ArgumentError(self, _not_readable(key, value))
        return parsed


def has_inner_space(value: str) -> bool:
    """A space between two characters that are not separators: one DictAction would delete."""
    text = value.strip()
    for match in re.finditer(r' +', text):
        before, after = text[match.start() - 1], text[match.end()]
        if before not in SEPARATORS and after not in SEPARATORS:
            return True
    return False


def is_single_value(value: str) -> bool:
    """What DictAction reads as one value: no brackets around it and no comma."""
    text = value.strip().strip('\'"')
    return not (text[:1] in '([' and text[-1:] in ')]') and ',' not in text


def _holds_call(parsed) -> bool:
    if isinstance(parsed, str):
        return bool(CALL.match(parsed))
    if isinstance(parsed, (list, tuple)):
        return any(_holds_call(item) for item in parsed)
    return False


def _not_readable(key: str, value: str) -> str:
    append = f" (and '{key}=' does not append: mmengine has no +=)" if key.endswith('+') else ''
    base = key.rstrip('+')
    return (
        f'{key}={value}: {ACCEPTED}{append}. Set one key at a time ({base}.0.KEY=VALUE for an '
        f"item the config has), or write a config that inherits this one: _base_ = ['CONFIG'], "
        f'then {base} = [...] with the whole new value'
    )


def _no_equals(pair: str, previous) -> str:
    if previous is None:
        return f'{pair!r} is not KEY=VALUE'
    return (
        f'{pair!r} is not KEY=VALUE. If it is the rest of the value before it, which has a '
        f"space, quote the pair as one argument: --cfg-options '{previous} {pair}'"
    )
