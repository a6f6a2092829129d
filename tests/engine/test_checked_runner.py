"""CheckedRunner is registered under its own name, the one the runtime configs give as
runner_type, and under 'StrictLoadRunner', the name the configs saved in older checkpoints give."""

from mmengine.config import Config
from mmengine.registry import RUNNERS

from tests.utils import ROOT
from vitspec.engine import CheckedRunner


def test_both_names_build_the_checked_runner():
    assert RUNNERS.get('CheckedRunner') is CheckedRunner
    assert RUNNERS.get('StrictLoadRunner') is CheckedRunner


def test_runtime_configs_name_it_by_its_class_name():
    named = {
        Config.fromfile(path).get('runner_type') for path in ROOT.glob('configs/**/runtime_*.py')
    }
    assert named == {'CheckedRunner'}
