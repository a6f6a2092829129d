"""A config that cannot be read names its cause: the file and line of a syntax error anywhere in
the ``_base_`` chain, the key of a ``--cfg-options`` value of the wrong kind."""

from argparse import Namespace

import pytest
from mmengine.config import DictAction

from tests.utils import ROOT, run_tool
from vitspec.config.cfg_options import merge_cfg_options
from vitspec.config.load import load_config
from vitspec.runs.runner import config_from_args

DEMO = ROOT / 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
BROKEN_LINE = '    y=2 z=3)'


def write_chain(folder, broken: str):
    """top.py -> mid.py -> base.py, with a syntax error on line 3 of ``broken``."""
    texts = {
        'base.py': 'a = 1\nb = dict(x=1, y=2)\n',
        'mid.py': "_base_ = ['./base.py']\nc = 2\n",
        'top.py': "_base_ = './mid.py'\nd = 3\n",
    }
    texts[broken] += f'e = dict(x=1,\n{BROKEN_LINE}\n'
    for name, text in texts.items():
        (folder / name).write_text(text)
    return folder / 'top.py'


def args_for(config, *options):
    """What tools/train.py's and tools/test.py's parsers make of CONFIG --cfg-options ..."""
    namespace = Namespace(cfg_options=None)
    if options:
        DictAction(option_strings=[], dest='cfg_options')(None, namespace, list(options))
    return Namespace(
        config=str(config), cfg_options=namespace.cfg_options, launcher='none', work_dir='unused'
    )


@pytest.mark.parametrize('broken', ['top.py', 'mid.py', 'base.py'])
def test_syntax_error_names_the_file_and_line(tmp_path, broken):
    top = write_chain(tmp_path, broken)
    with pytest.raises(SyntaxError) as info:
        config_from_args(args_for(top))
    assert str(info.value).startswith(f'{tmp_path / broken}:4: ')
    assert BROKEN_LINE.strip() in str(info.value)
    assert info.value.filename == str(tmp_path / broken)
    assert info.value.lineno == 4


def test_a_chain_without_errors_loads(tmp_path):
    write_chain(tmp_path, 'base.py')
    (tmp_path / 'base.py').write_text('a = 1\n')
    assert load_config(str(tmp_path / 'top.py')).d == 3


@pytest.mark.slow  # starts tools/test.py
def test_test_tool_prints_the_file_and_line(tmp_path):
    top = write_chain(tmp_path, 'mid.py')
    proc = run_tool(['tools/test.py', top, tmp_path / 'none.pth'], timeout=120, check=False)
    assert proc.returncode != 0
    assert f'{tmp_path / "mid.py"}:4: ' in proc.stderr
    assert '<unknown>' not in proc.stderr


@pytest.mark.parametrize(
    'option, key, was',
    [
        ('train_cfg.max_iters=abc', 'train_cfg.max_iters', '500 (int)'),
        ('optim_wrapper.optimizer.lr=fast', 'optim_wrapper.optimizer.lr', '(float)'),
        ('train_cfg.max_iters=[1,2]', 'train_cfg.max_iters', '500 (int)'),
        ('train_dataloader.dataset=abc', 'train_dataloader.dataset', '(dict)'),
        ('model.backbone.out_indices=abc', 'model.backbone.out_indices', '(5,) (tuple)'),
        ('model.backbone.out_indices=[a]', 'model.backbone.out_indices.0', '5 (int)'),
        ('train_dataloader.dataset.pipeline.0.type=7', None, None),  # a string may change
    ],
)
def test_cfg_option_of_the_wrong_kind_names_the_key(option, key, was):
    if key is None:
        config_from_args(args_for(DEMO, option))
        return
    with pytest.raises(TypeError) as info:
        config_from_args(args_for(DEMO, option))
    message = str(info.value)
    assert message.startswith(f'--cfg-options {key}=')
    assert was in message


@pytest.mark.parametrize(
    'option',
    [
        'train_cfg.max_iters=2.0',  # int <-> float
        'optim_wrapper.optimizer.lr=1',
        'model.backbone.final_norm=0',  # bool <-> number
        'model.pretrained=None',  # None replaces anything
        'load_from=work/iter_1.pth',  # None is replaced by anything
        'model.backbone.brand_new_key=abc',  # keys the config did not have
        'model.decode_head.loss_decode.type=FocalLoss',  # strings to strings
        'model.backbone.out_indices=[3,5]',
    ],
)
def test_cfg_options_of_a_fitting_kind_merge(option):
    cfg = config_from_args(args_for(DEMO, option))
    key, _, _ = option.partition('=')
    node = cfg
    for part in key.split('.'):
        node = node[part]
    assert node is None or str(node).replace(' ', '') in option or isinstance(node, float)


def test_dict_values_are_checked_key_by_key():
    cfg = load_config(str(DEMO))
    with pytest.raises(TypeError, match=r"^--cfg-options model.backbone.embed_dims='wide': the "):
        merge_cfg_options(cfg, {'model.backbone': {'embed_dims': 'wide', 'num_heads': 2}})


def test_merge_replaces_the_values():
    cfg = load_config(str(DEMO))
    merge_cfg_options(cfg, {'train_cfg.max_iters': 7, 'model.decode_head.num_classes': 3})
    assert (cfg.train_cfg.max_iters, cfg.model.decode_head.num_classes) == (7, 3)
