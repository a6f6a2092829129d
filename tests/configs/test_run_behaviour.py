"""Every shipped config declares what a run does, so any train script (ours, mmseg's, mmdet's)
runs it alike: vitspec imported, the safe-I/O, empty-dataset, unused-parameter and progress-bar
hooks, a finite-loss optimizer wrapper, the strict-loading runner; and every frozen-backbone
probe, segmentation or depth, is guarded by the same LinearProbeHook."""

import pytest
from mmengine.config import Config

from tests.utils import ROOT
from vitspec.config.typos import check_config_keys

CONFIGS = sorted(p.relative_to(ROOT) for p in (ROOT / 'configs').glob('[!_]*/*.py'))
RUN_HOOKS = [
    'SafeIOHook',
    'EmptyDatasetCheckHook',
    'UnusedParameterCheckHook',
    'EvalProgressBarHook',
]
WRAPPERS = ('FiniteLossOptimWrapper', 'FiniteLossAmpOptimWrapper')


def frozen(cfg) -> bool:
    """The whole backbone frozen (a probe); a ViT-Adapter trains around its frozen ViT."""
    backbone = cfg.model.backbone
    if backbone.type == 'ViTAdapter':
        return False
    return backbone.get('frozen_stages', -1) >= backbone.num_layers


@pytest.mark.parametrize('path', CONFIGS, ids=str)
def test_config_declares_the_run_behaviour(path):
    cfg = Config.fromfile(ROOT / path)
    assert 'vitspec' in cfg.custom_imports.imports
    hooks = [h['type'] for h in cfg.custom_hooks]
    assert hooks[: len(RUN_HOOKS)] == RUN_HOOKS
    assert 'ComputableMetricsHook' in hooks  # a metric that cannot be computed stops the test
    assert cfg.optim_wrapper.type in WRAPPERS
    assert cfg.runner_type == 'CheckedRunner'  # load_from and resume refuse a misfit
    # --show-dir draws on the pixels the model saw (EXIF orientation not applied)
    assert cfg.default_hooks.visualization.type.startswith('StoredOrder')
    assert ('LinearProbeHook' in hooks) is frozen(cfg)
    check_config_keys(cfg)  # no key of a shipped config looks like a typo


def test_amp_recipes_use_the_guarded_amp_wrapper():
    """The configs whose published recipe trains in mixed precision (ViTDet, MAE / DeiT-III
    UPerNet: '-amp-' in the name)."""
    amp = [p for p in CONFIGS if '-amp-' in p.name]
    assert amp
    for path in amp:
        assert Config.fromfile(ROOT / path).optim_wrapper.type == 'FiniteLossAmpOptimWrapper'
