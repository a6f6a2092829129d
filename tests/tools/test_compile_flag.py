"""--compile of tools/train.py and tools/test.py: what it sets in the config, and the test step
that tools/test.py compiles (mmengine compiles only the train step)."""

from types import SimpleNamespace

import pytest
import torch
from mmengine.config import Config
from torch import nn

from tools.test import parse_args as parse_test_args
from tools.train import parse_args as parse_train_args
from vitspec.runs.compile import compile_options, compile_test_step, enable_compile
from vitspec.runs.runner import config_from_args

CONFIG = 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'


def test_compile_flag_switches_the_config_on_and_keeps_given_options():
    args = parse_train_args([CONFIG, '--compile', '--cfg-options', 'compile.mode=max-autotune'])
    assert args.compile
    assert enable_compile(config_from_args(args)).compile == dict(mode='max-autotune')
    cfg = enable_compile(config_from_args(parse_train_args([CONFIG, '--compile'])))
    assert cfg.compile is True and compile_options(cfg) == {}
    assert not parse_train_args([CONFIG]).compile
    assert parse_test_args([CONFIG, 'ckpt.pth', '--compile']).compile


@pytest.mark.parametrize('given', [None, False])
def test_no_compile_unless_asked(given):
    assert compile_options(Config(dict(compile=given))) is None
    assert compile_options(Config(dict())) is None


def test_a_compile_value_that_is_no_option_is_refused():
    with pytest.raises(TypeError, match='compile must be True, False or a dict'):
        compile_options(Config(dict(compile='inductor')))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 2)

    def test_step(self, x):
        return self.linear(x).relu()


def test_the_test_step_is_compiled_with_the_configs_options():
    torch._dynamo.reset()
    model = Model()
    runner = SimpleNamespace(cfg=Config(dict(compile=dict(backend='eager'))), model=model)
    eager = model.test_step
    compile_test_step(runner)
    assert model.test_step != eager
    x = torch.randn(4, 3)
    torch.testing.assert_close(model.test_step(x), eager(x))
    untouched = Model()
    compile_test_step(SimpleNamespace(cfg=Config(dict()), model=untouched))
    assert 'test_step' not in vars(untouched)
