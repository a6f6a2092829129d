"""CheckedRunner is registered under its own name and under 'StrictLoadRunner', the name the
runtime configs give as runner_type (kept so that every built config stays as it was)."""

from mmengine.config import Config
from mmengine.registry import RUNNERS

from tests.utils import ROOT
from vitspec.engine import CheckedRunner


def test_both_names_build_the_checked_runner():
    assert RUNNERS.get('CheckedRunner') is CheckedRunner
    assert RUNNERS.get('StrictLoadRunner') is CheckedRunner


def test_runtime_configs_name_it():
    named = [
        Config.fromfile(path).get('runner_type') for path in ROOT.glob('configs/**/runtime_*.py')
    ]
    assert 'StrictLoadRunner' in named
    assert all(RUNNERS.get(name) is CheckedRunner for name in named if name)
