"""Which keys of a state dict do not fit a model's, and how to say so."""

import re
from typing import NamedTuple

from vitspec.errors import CheckpointError

# 'backbone.blocks.5.attn.qkv.weight' -> 'backbone.blocks.5'
BLOCK_INDEX = re.compile(r'^(.*?\.\d+)\.')
FEW = 6  # named per kind in a summary; the counts are always complete
MAY_MISS = ('num_batches_tracked',)  # as mmengine's loader: older BatchNorm checkpoints lack it


class Mismatch(NamedTuple):
    missing: list  # in the model, not in the state dict
    unexpected: list  # in the state dict, not in the model
    shapes: list  # 'key: checkpoint (..) vs model (..)'

    def __bool__(self) -> bool:
        return bool(self.missing or self.unexpected or self.shapes)


def find_mismatch(own: dict, sd: dict, may_miss: tuple = ()) -> Mismatch:
    """Compare ``sd`` with the model's own state dict ``own``; keys ending in one of
    ``may_miss`` may be missing."""
    return Mismatch(
        missing=[k for k in own if k not in sd and not (may_miss and k.endswith(may_miss))],
        unexpected=[k for k in sd if k not in own],
        shapes=[
            f'{k}: checkpoint {tuple(v.shape)} vs model {tuple(own[k].shape)}'
            for k, v in sd.items()
            if k in own and tuple(v.shape) != tuple(own[k].shape)
        ],
    )


def check_fits(own: dict, sd: dict, heading: str, may_miss: tuple = (), few: int = None):
    """Raise CheckpointError, ``heading`` then `describe_mismatch`'s lines, when ``sd`` does not
    fit the model's own state dict ``own``."""
    mismatch = find_mismatch(own, sd, may_miss)
    if mismatch:
        raise CheckpointError('\n'.join([heading, *describe_mismatch(mismatch, few)]))


def describe_mismatch(mismatch: Mismatch, few: int = None) -> list:
    """One line per kind of mismatch with its count. ``few=None`` names every key; otherwise
    missing and unexpected keys are grouped by block ('backbone.blocks.5.*') and at most
    ``few`` groups or shape mismatches are named."""
    lines = []
    for title, keys in (
        ('missing keys', mismatch.missing),
        ('unexpected keys', mismatch.unexpected),
        ('shape mismatches', mismatch.shapes),
    ):
        if not keys:
            continue
        named = keys if few is None or title == 'shape mismatches' else _grouped(keys)
        if few is not None and len(named) > few:
            named = [*named[:few], f'... {len(named) - few} more']
        lines.append(f'  {title} ({len(keys)}): ' + ', '.join(named))
    return lines


def _grouped(keys: list) -> list:
    groups = {}
    for key in keys:
        match = BLOCK_INDEX.match(key)
        prefix = match.group(1) if match else key
        groups.setdefault(prefix, []).append(key)
    return [
        members[0] if len(members) == 1 else f'{prefix}.* ({len(members)})'
        for prefix, members in groups.items()
    ]
