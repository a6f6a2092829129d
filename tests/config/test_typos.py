"""A config key that is a typo stops the run before it is built: a top-level key close to a
runner field (mmengine keeps it as a variable and ignores it), a hook option that is not one of
the hook's (CheckpointHook fails on it only at its first save), an env_cfg key."""

import runpy

import pytest
import torch
from mmengine.config import Config
from mmengine.model import BaseModel

import vitspec.engine  # noqa: F401  registers the hooks
from tests.utils import ROOT
from vitspec.config.typos import check_config_keys, top_level_typos
from vitspec.engine import CheckedRunner
from vitspec.errors import ConfigKeyError

DEMO = ROOT / 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'


def config(**keys) -> Config:
    base = dict(
        default_scope='mmengine',
        load_from=None,
        default_hooks=dict(checkpoint=dict(type='CheckpointHook', interval=1)),
        custom_hooks=[dict(type='SafeIOHook')],
        env_cfg=dict(cudnn_benchmark=False),
        crop_size=(512, 512),  # variables of the config file, far from any field
        data_root='data/ade',
        norm_cfg=dict(type='SyncBN'),
        train_pipeline=[],
    )
    return Config({**base, **keys})


def test_misspelt_top_level_key_names_the_field_and_the_opt_out():
    with pytest.raises(ConfigKeyError) as error:
        check_config_keys(config(laod_from='work_dirs/x/iter_3.pth', Resume=True))
    message = str(error.value)
    assert "'laod_from' is not a field the runner reads" in message
    assert "did you mean 'load_from'?" in message
    assert "intended_keys = ['laod_from']" in message
    assert "'Resume' is not a field" in message


def test_variables_of_the_config_and_listed_keys_pass():
    assert top_level_typos(config()) == []
    assert top_level_typos(config(laod_from='x'))  # a typo unless listed
    listed = config(laod_from='x', intended_keys=['laod_from'])
    assert top_level_typos(listed) == []
    check_config_keys(config())
    check_config_keys(listed)


def test_hook_option_typos_and_unknown_checkpoint_options_stop():
    cfg = config()
    cfg.merge_from_dict({'default_hooks.checkpoint.intervl': 1})
    cfg.custom_hooks.append(dict(type='CheckpointHook', keep_last=3, priority='LOW'))
    with pytest.raises(ConfigKeyError) as error:
        check_config_keys(cfg)
    message = str(error.value)
    typo = "default_hooks.checkpoint.intervl: CheckpointHook has no option 'intervl'"
    assert typo + "; did you mean 'interval'?" in message
    assert (
        "custom_hooks.1.keep_last: CheckpointHook has no option 'keep_last'; its options: "
        in message
    )
    assert 'priority' not in message


def test_env_cfg_typos_stop():
    with pytest.raises(ConfigKeyError, match="env_cfg.cudnn_benchmrk: .*'cudnn_benchmark'"):
        check_config_keys(config(env_cfg=dict(cudnn_benchmrk=True)))


class Linear(BaseModel):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(1))

    def forward(self, inputs, mode='tensor'):
        return dict(loss=self.w.sum())


def test_the_runner_refuses_before_it_is_built(tmp_path):
    cfg = config(model=Linear(), work_dir=str(tmp_path / 'w'), laod_from='iter_3.pth')
    with pytest.raises(ConfigKeyError, match="did you mean 'load_from'"):
        CheckedRunner.from_cfg(cfg)
    assert not (tmp_path / 'w').exists()


def test_train_tool_stops_before_the_runner_is_built(tmp_path):
    main = runpy.run_path(str(ROOT / 'tools' / 'train.py'), run_name='tool')['main']
    options = ['laod_from=work_dirs/x/iter_3.pth', 'default_hooks.checkpoint.intervl=1']
    with pytest.raises(ConfigKeyError) as error:
        main([str(DEMO), '--work-dir', str(tmp_path / 'w'), '--cfg-options', *options])
    assert "did you mean 'load_from'?" in str(error.value)
    assert "CheckpointHook has no option 'intervl'; did you mean 'interval'?" in str(error.value)
    assert not list((tmp_path / 'w').glob('*.py'))  # no config copy: the runner was not built
