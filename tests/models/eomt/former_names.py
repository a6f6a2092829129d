"""EoMT state dicts as they were saved when query copies were sibling modules."""

from vitspec.layers.specialized import row_group_of


def with_former_query_names(state_dict: dict) -> dict:
    """``state_dict`` with each query copy under its former name: ``...norm1.query_weight`` ->
    ``...query_norm1.weight``, ``...attn.qkv.query_bias`` -> ``...attn.query_qkv.bias``."""
    former = {}
    for key, value in state_dict.items():
        if row_group_of(key) == 'query':
            prefix, _, name = key.rpartition('.')
            part_prefix, _, part = prefix.rpartition('.')
            key = f'{part_prefix}.query_{part}.{name.removeprefix("query_")}'
        former[key] = value
    return former
