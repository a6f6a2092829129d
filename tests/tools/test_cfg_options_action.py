"""--cfg-options values that mmengine's parser mangles or cannot read: a path with spaces is kept
as given; what it cannot read (dict(...), spaces inside list items, a pair the shell split at an
unquoted space) stops with what to write instead, not a RecursionError or a silent change."""

import pytest

from tools import test, train

POSITIONAL = {train: ['config.py'], test: ['config.py', 'ckpt.pth']}


def options(*pairs, tool=train):
    return tool.parse_args([*POSITIONAL[tool], '--cfg-options', *pairs]).cfg_options


@pytest.mark.parametrize('tool', [train, test], ids=['train', 'test'])
def test_a_path_with_spaces_is_kept(tool):
    """mmengine's parser made it '/data/mycoco'."""
    assert options('data_root=/data/my coco', tool=tool) == {'data_root': '/data/my coco'}
    assert options("load_from='/runs/a b/iter_8.pth'") == {'load_from': '/runs/a b/iter_8.pth'}


def test_what_mmengine_reads_is_read_as_before():
    assert options('a=1', 'b=[64, 64]', 'c=(1, 2)', 'd=None', 'e=True', 'f=x,y') == dict(
        a=1, b=[64, 64], c=(1, 2), d=None, e=True, f=['x', 'y']
    )


def error_of(capsys, *pairs):
    with pytest.raises(SystemExit):
        options(*pairs)
    return capsys.readouterr().err


def test_a_dict_in_a_list_says_what_the_parser_accepts(capsys):
    """mmengine's parser recursed until RecursionError."""
    error = error_of(capsys, "custom_hooks+=[dict(type='EMAHook', momentum=0.001)]")
    assert "argument --cfg-options: custom_hooks+=[dict(type='EMAHook', momentum=0.001)]: " in error
    assert 'reads numbers, True / False, None, strings, and lists [a,b] or tuples (a,b)' in error
    assert "(and 'custom_hooks+=' does not append: mmengine has no +=)" in error
    assert "a config that inherits this one: _base_ = ['CONFIG'], then custom_hooks = [" in error


def test_a_dict_of_one_key_is_not_taken_for_a_string(capsys):
    """mmengine's parser read it as the string 'dict(type=EMAHook)'."""
    assert 'not dict(...)' in error_of(capsys, 'custom_hooks=[dict(type=EMAHook)]')


def test_spaces_inside_list_items_say_how_to_set_the_item(capsys):
    error = error_of(capsys, 'paths=[/a b, /c]')
    assert "removes the spaces inside list and tuple items ('[/ab,/c]')" in error
    assert "'paths.0=a value with spaces'" in error


def test_a_value_split_by_the_shell_says_how_to_quote(capsys):
    """An unquoted space: argparse got 'data_root=/data/my' and 'coco'; mmengine raised
    'not enough values to unpack'."""
    error = error_of(capsys, 'data_root=/data/my', 'coco')
    assert "'coco' is not KEY=VALUE" in error
    assert "quote the pair as one argument: --cfg-options 'data_root=/data/my coco'" in error
