"""vitspec.config.tree: plain copies, values at paths, flattening and differences of a config."""

import pytest
from mmengine.config import Config, ConfigDict

from vitspec.config.tree import (
    ABSENT,
    canonical,
    diff,
    differing,
    flatten,
    get,
    plain,
    set_value,
)

PIPELINE = [dict(type='Load'), dict(type='RandomResize', scale=(512, 512)), dict(type='Pack')]


def test_plain_copies_config_dicts_and_turns_tuples_into_lists_unless_kept():
    value = ConfigDict(a=(1, [2, (3,)]), b=ConfigDict(c=1))
    assert plain(value) == {'a': [1, [2, [3]]], 'b': {'c': 1}}
    assert type(plain(value)['b']) is dict
    assert plain(value, keep_tuples=True) == {'a': (1, [2, (3,)]), 'b': {'c': 1}}
    copied = plain(value)
    copied['b']['c'] = 2
    assert value.b.c == 1


def test_get_reads_dotted_keys_indices_and_selections():
    cfg = Config(dict(model=dict(backbone=dict(out_indices=(3, 11))), train_pipeline=PIPELINE))
    assert get(cfg, 'model.backbone.out_indices.1') == 11
    assert get(cfg, 'model.backbone.out_indices[1]') == 11
    assert get(cfg, 'model.backbone.out_indices[-1]') == 11
    assert get(cfg, 'train_pipeline[type=RandomResize].scale') == (512, 512)
    assert get(cfg, 'train_pipeline.2.type') == 'Pack'
    for missing in ('model.neck', 'model.backbone.out_indices.2', 'train_pipeline[type=Crop]'):
        with pytest.raises(KeyError, match='no'):
            get(cfg, missing)
        assert get(cfg, missing, ABSENT) is ABSENT
    assert get(cfg, 'model.backbone.out_indices.-1', ABSENT) is ABSENT  # --cfg-options: no


def test_set_value_puts_a_value_at_a_path():
    cfg = Config(dict(model=dict(backbone=dict(out_indices=[3, 11])), train_pipeline=PIPELINE))
    set_value(cfg, 'model.backbone.out_indices[0]', 5)
    set_value(cfg, 'train_pipeline[type=RandomResize].scale', (256, 256))
    set_value(cfg, 'model.neck', None)
    assert cfg.model.backbone.out_indices == [5, 11] and cfg.model.neck is None
    assert cfg.train_pipeline[1].scale == (256, 256)
    with pytest.raises(KeyError):
        set_value(cfg, 'model.head.type', 'X')


def test_flatten_names_leaves_and_keeps_empty_containers_as_leaves():
    tree = {'model': {'backbone': {'specialize': {}, 'out': (3, 11)}}, 'x': []}
    assert flatten(tree) == {
        'model.backbone.specialize': {},
        'model.backbone.out.0': 3,
        'model.backbone.out.1': 11,
        'x': [],
    }
    assert flatten({'a': 1}, 'top.') == {'top.a': 1}


def test_differing_pairs_the_values_of_each_key_that_differs():
    a, b = flatten({'a': 1, 'b': {'c': 2}}), flatten({'b': {'c': 3}, 'd': 4})
    assert differing(a, b) == [('a', 1, ABSENT), ('b.c', 2, 3), ('d', ABSENT, 4)]
    assert differing(a, b, absent='-')[0] == ('a', 1, '-')
    assert differing(a, a) == []


def test_diff_names_each_differing_key():
    before = {'model': {'backbone': {'depth': 12, 'out': [3, 11]}, 'head': 1}, 'gone': 0}
    after = {'model': {'backbone': {'depth': 12, 'out': [3, 10]}, 'head': 1.0}, 'new': (1,)}
    assert diff(before, after) == [
        'gone: 0 -> <absent>',
        'model.backbone.out.1: 11 -> 10',
        'model.head: 1 -> 1.0',
        'new: <absent> -> (1,)',
    ]
    assert diff(before, before) == []
    assert diff({'a': (1, 2)}, {'a': [1, 2]}) == ['a: (1, 2) -> [1, 2]']


def test_canonical_keeps_tuples_apart_and_writes_the_rest_as_repr():
    assert canonical({1: (1, [2]), 't': type}) == {
        '1': {'__tuple__': [1, [2]]},
        't': {'__repr__': "<class 'type'>"},
    }
