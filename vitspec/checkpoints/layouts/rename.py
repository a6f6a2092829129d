"""Renaming the keys of a foreign state dict by rules: the one renaming loop of the layouts."""

import re

from vitspec.errors import CheckpointError

# The last rule of a layout whose other keys are already ours: it matches every key, unchanged.
KEEP = (r'^', '')
# The replacement of a rule that knows the keys it matches and keeps them as they are.
SAME = r'\g<0>'


def rename_keys(sd: dict, rules, what: str) -> dict:
    """``sd`` with every key renamed by the FIRST rule whose pattern matches it (``re.subn``
    with the rule's replacement: a string or a function of the match); later rules are not
    tried. A key that no rule matches is a CheckpointError naming every such key (a layout the
    rules were not written for); end the rules with ``KEEP`` to keep those keys instead.
    ``what`` names the layout in that error. Order of the keys is kept."""
    out, unknown = {}, []
    for key, value in sd.items():
        new = _first_match(rules, key)
        if new is None:
            unknown.append(key)
        else:
            out[new] = value
    if unknown:
        raise CheckpointError(f'{what}: keys of no known part: {", ".join(sorted(unknown))}')
    return out


def _first_match(rules, key: str):
    for pattern, replacement in rules:
        new, hits = re.subn(pattern, replacement, key)
        if hits:
            return new
    return None
