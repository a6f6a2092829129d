"""A built config written as Python with the origin of its values: the text is the config
again, and a comment stands where the origin changes."""

from vitspec.config.annotated import annotated_text, inline

CFG = {
    'model': {
        'type': 'M',
        'backbone': {'depth': 12, 'out_indices': (11,), 'init_cfg': None},
        'head': {'loss': [{'type': 'L', 'weight': 1.0}, {'type': 'G'}]},
    },
    'crop_size': (512, 512),
    'classes': {'a b': 1},
    'empty': {},
}
ORIGINS = {
    'model.type': 'seg.py',
    'model.backbone.depth': 'vit.py',
    'model.backbone.out_indices.0': 'leaf.py',
    'model.backbone.init_cfg': 'vit.py',
    'model.head.loss.0.type': 'seg.py',
    'model.head.loss.0.weight': 'seg.py',
    'model.head.loss.1.type': 'seg.py',
    'crop_size.0': 'data.py',
    'crop_size.1': 'data.py',
    'classes.a b': 'data.py',
    'empty': 'leaf.py',
}


def test_the_text_is_the_config_again():
    text = annotated_text(CFG, ORIGINS)
    namespace = {}
    exec(text, {'dict': dict}, namespace)
    assert namespace == CFG
    assert type(namespace['model']['backbone']['out_indices']) is tuple


def test_a_comment_stands_on_top_level_keys_and_where_the_origin_changes():
    lines = annotated_text(CFG, ORIGINS).splitlines()
    commented = {
        line.split('#')[0].strip(): line.split('# from ')[1] for line in lines if '#' in line
    }
    assert commented == {
        'model = dict(': 'seg.py',
        'backbone=dict(': 'vit.py',
        'out_indices=(11,),': 'leaf.py',
        'crop_size = (512, 512)': 'data.py',
        "classes = {'a b': 1}": 'data.py',
        'empty = dict()': 'leaf.py',
    }
    # one origin, short enough: one line
    assert "    head=dict(loss=[dict(type='L', weight=1.0), dict(type='G')])," in lines


def test_inline_writes_one_item_tuples_and_other_keys():
    assert inline({'t': (1,), 'n': None}) == 'dict(t=(1,), n=None)'
    assert inline({1: 'x'}) == "{1: 'x'}"
