"""Every option of SpecViT is checked where its default or kind is declared (vitspec.models.
backbones.options): real bools, ints in range, block sets against the depth, each error naming
the key, the value and what is allowed; the combinations that cannot work are refused there,
before any part is built."""

import argparse
import inspect

import pytest
from mmengine.config import DictAction

from vitspec.errors import ConfigError
from vitspec.models import SpecViT
from vitspec.models.backbones import options, spec_vit
from vitspec.models.backbones.option_kinds import BOOL, Option, integer

TOY = dict(img_size=32, patch_size=8, embed_dims=32, num_layers=6, num_heads=2)


def cfg_option(text: str):
    """The value ``--cfg-options KEY=VALUE`` gives (mmengine's DictAction)."""
    parser = argparse.ArgumentParser()
    parser.add_argument('--cfg-options', nargs='+', action=DictAction)
    return parser.parse_args(['--cfg-options', text]).cfg_options.popitem()[1]


def test_a_string_for_a_bool_is_refused_with_the_bool_to_write():
    value = cfg_option('model.backbone.skip.attn=off')
    assert value == 'off'  # truthy: it kept every skip connection
    with pytest.raises(ConfigError) as error:
        SpecViT(**TOY, skip=dict(attn=value))
    message = str(error.value)
    assert "skip.attn='off': must be True or False" in message
    assert 'write skip.attn=False' in message


@pytest.mark.parametrize('blocks', [-1, 7, 10, 2.5, True, [0, 99], [0, 6], [-7], '1', 'last'])
def test_block_sets_out_of_range_or_of_the_wrong_type_are_refused(blocks):
    with pytest.raises(ConfigError, match=r'skip\.blocks=.*: must be .*an int 0\.\.6'):
        SpecViT(**TOY, skip=dict(attn=False, blocks=blocks))


@pytest.mark.parametrize(
    'blocks, removed',
    [([-1], [5]), (6, range(6)), (0, []), (2, [0, 1]), ('first_third', [0, 1]), (None, [])],
)
def test_block_sets_in_range(blocks, removed):
    model = SpecViT(**TOY, skip=dict(attn=False, blocks=blocks))
    assert [i for i, b in enumerate(model.blocks) if not b.skip_attn] == list(removed)


@pytest.mark.parametrize('key', ['blocks', 'qkv_blocks'])
def test_specialize_block_sets_share_the_check(key):
    with pytest.raises(ConfigError, match=rf'specialize\.{key}=10: must be'):
        SpecViT(**TOY, specialize={key: 10})


def test_a_bare_value_that_means_nothing_clear_is_refused():
    with pytest.raises(ConfigError, match=r'skip=False: must be a dict of its options \(attn, '):
        SpecViT(**TOY, skip=False)
    with pytest.raises(ConfigError, match='specialize=1: must be a dict'):
        SpecViT(**TOY, specialize=1)
    for keep_all in (None, True):
        assert all(b.skip_attn and b.skip_mlp for b in SpecViT(**TOY, skip=keep_all).blocks)


@pytest.mark.parametrize(
    'kw, message',
    [
        (
            dict(specialize=dict(lora_rank=0)),
            r'specialize\.lora_rank=0: must be None or an int >= 1',
        ),
        (dict(specialize=dict(norm='yes')), r"specialize\.norm='yes'.*write specialize\.norm=True"),
        (dict(specialize=dict(registers='CLS')), r"registers='CLS': must be 'patch' or 'cls'"),
        (dict(token_graying=dict(mode='dct')), r'token_graying\.eps must be given: a number > 0'),
        (dict(token_graying=dict(eps=2)), r'token_graying\.eps=2: must be a number > 0 and <= 1'),
        (dict(token_graying=dict(eps=0.5, mode='fft')), r"mode='fft': must be 'dct' or 'svd'"),
        (dict(rope=dict(jitter_coords=0.5)), r'rope\.jitter_coords=0\.5: must be None or a num'),
        (dict(layerwise_scaling=dict(head_dim='16')), r"head_dim='16': must be an int >= 1"),
        (dict(layerwise_scaling=dict(alpha=0.5)), r'alpha=0\.5: must be a pair'),
    ],
)
def test_each_option_dict_checks_types_and_ranges(kw, message):
    with pytest.raises(ConfigError, match=message):
        SpecViT(**TOY, **kw)


def test_an_option_added_to_a_table_is_checked_without_code_of_its_own(monkeypatch):
    """A new key in SKIP is merged with its default and type-checked by the table alone."""
    monkeypatch.setitem(options.SKIP.options, 'every', Option(1, integer(1)))
    monkeypatch.setitem(options.SKIP.options, 'invert', Option(False, BOOL))
    assert options.SKIP.merge(dict(attn=False), num_layers=6)['every'] == 1
    with pytest.raises(ConfigError, match=r"SpecViT skip\.invert='off': must be True or False"):
        SpecViT(**TOY, skip=dict(invert='off'))
    with pytest.raises(ConfigError, match=r'SpecViT skip\.every=0: must be an int >= 1'):
        SpecViT(**TOY, skip=dict(every=0))
    with pytest.raises(TypeError, match="unknown option 'evry'; did you mean 'every'"):
        SpecViT(**TOY, skip=dict(evry=2))


def test_the_tables_read_as_their_defaults():
    assert options.SPECIALIZE['qkv_blocks'] == 'first_third'
    assert dict(options.SKIP.items()) == dict(attn=True, mlp=True, blocks='all')
    assert options.SPECIALIZE.merge(True, num_layers=6) == dict(options.SPECIALIZE.items())


def test_every_argument_of_spec_vit_has_its_kind_or_table():
    params = set(inspect.signature(SpecViT.__init__).parameters) - {'self', 'init_cfg', 'unknown'}
    assert params == set(options.ARGUMENTS) | set(options.TABLES)
    assert not set(options.ARGUMENTS) & set(options.TABLES)


@pytest.mark.parametrize(
    'kw, message',
    [
        (dict(with_cp='true'), r"SpecViT with_cp='true': must be True or False .*with_cp=True"),
        (dict(num_layers=0), r'SpecViT num_layers=0: must be an int >= 1'),
        (dict(embed_dims=32.0), r'SpecViT embed_dims=32\.0: must be an int >= 1'),
        (dict(img_size=(32, 32, 3)), r'img_size=\(32, 32, 3\): must be an int >= 1 or a pair'),
        (dict(out_indices=6), r'out_indices=6: must be a block index in -6\.\.5 or a list'),
        (dict(out_indices=[0, -7]), r'out_indices=\[0, -7\]: .*indices in -6\.\.5'),
        (dict(global_attn_indexes=(2, 6)), r'global_attn_indexes=\(2, 6\): .*in -6\.\.5'),
        (dict(drop_path_rate=1.5), r'drop_path_rate=1\.5: must be a number >= 0 and <= 1'),
        (dict(mlp_ratio=0), r'mlp_ratio=0: must be a number > 0'),
        (dict(window_padding='zero'), r"window_padding='zero': must be 'masked' or 'zeros'"),
        (dict(rel_pos_bias='beit'), r"rel_pos_bias='beit': must be None or 'decomposed' or"),
        (dict(pos_embed_interp='bicubic'), r"pos_embed_interp='bicubic': must be 'timm', "),
        (dict(frozen_stages=-2), r'frozen_stages=-2: must be an int >= -1'),
        (dict(ffn_type='geglu'), r"SpecViT ffn_type='geglu': must be 'mlp' or 'swiglu'"),
    ],
)
def test_each_argument_is_checked_by_its_kind(kw, message):
    with pytest.raises(ConfigError, match=message):
        SpecViT(**{**TOY, **kw})


@pytest.mark.parametrize(
    'kw',
    [
        dict(img_size=(32, 48), pretrain_img_size=16, out_indices=(1, -1), frozen_stages=6),
        dict(out_indices=range(6), global_attn_indexes=range(0, 6, 2), window_size=2),
        dict(img_size=[32, 48], global_attn_indexes=[-1], window_size=2, layer_scale_init=0),
        dict(mlp_ratio=2.5, drop_path_rate=1, ffn_type='swiglu', rel_pos_bias='decomposed'),
    ],
)
def test_arguments_in_range_are_taken(kw):
    backbone = SpecViT(**{**TOY, **kw})
    assert len(backbone.out_indices) == len(kw.get('out_indices', TOY.get('out_indices', [0])))


def test_an_impossible_combination_is_refused_before_any_part_is_built(monkeypatch):
    built = []
    monkeypatch.setattr(spec_vit, 'PatchEmbed', lambda *a: built.append(a))
    with pytest.raises(ConfigError, match='needs a backbone with LayerScale'):
        SpecViT(**TOY, specialize=dict(layer_scale=True))
    with pytest.raises(ConfigError, match=r'class-attention layers \(CaiT\) use the plain MLP'):
        SpecViT(**TOY, pos_embed_cls=False, num_class_attn_layers=1, ffn_type='swiglu')
    assert built == []


def test_the_resolved_options_derive_what_the_backbone_keeps():
    args = {**{n: p.default for n, p in inspect.signature(SpecViT.__init__).parameters.items()}}
    args = {k: v for k, v in args.items() if k in options.ARGUMENTS or k in options.TABLES}
    o = options.resolve({**args, **TOY, 'img_size': (32, 48), 'pretrain_img_size': 16})
    assert o.img_size == (32, 48) and o.grid_size == (2, 2) and o.patch_grid == (4, 6)
    assert o.num_pos == 5 and o.num_prefix_tokens == 1 and o.out_indices == [5]
    assert o.specialize is None and o.skip is None and o.head_dim == 16
