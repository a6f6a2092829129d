"""The keys where two nested dicts differ, for people: ``model.backbone.out_indices: [11] ->
[10, 11]``. Lists and tuples of the same type and length are compared item by item (a pipeline
step is named by its index); otherwise whole."""


class _Absent:
    def __repr__(self):
        return '<absent>'


ABSENT = _Absent()


def dict_diff(before, after, prefix: str = '') -> list:
    """``['key: before -> after', ...]`` for every leaf value that differs, sorted by key."""
    if isinstance(before, dict) and isinstance(after, dict):
        lines = []
        for key in sorted(before.keys() | after.keys(), key=str):
            lines += dict_diff(before.get(key, ABSENT), after.get(key, ABSENT), f'{prefix}{key}.')
        return lines
    same_sequence = isinstance(before, (list, tuple)) and type(before) is type(after)
    if same_sequence and len(before) == len(after):
        return [
            line
            for i, (a, b) in enumerate(zip(before, after))
            for line in dict_diff(a, b, f'{prefix}{i}.')
        ]
    if before == after and type(before) is type(after):
        return []
    return [f'{prefix[:-1]}: {before!r} -> {after!r}']
