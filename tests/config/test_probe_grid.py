"""A probe grid config names its heads' settings; each head's config is the single-probe config
with them applied, and bad grids are refused naming what is wrong."""

import pytest
import torch
from mmengine.config import Config

from tests.utils import ROOT
from vitspec.config.probe_grid import grid_config, head_configs, selection
from vitspec.errors import ConfigError, ConfigKeyError

SEG = ROOT / 'configs/ade20k/linear_vit-s14-dinov2_bnhead_8xb2-40k_ade20k-512x512.py'
DEPTH = ROOT / 'configs/nyu/lin1_vit-s14-dinov2_8xb2-38k_nyu-416x544.py'


def with_grid(path, *heads, **grid) -> Config:
    cfg = Config.fromfile(path)
    cfg.probe_grid = dict(heads=list(heads), **grid)
    return cfg


def test_head_configs_apply_each_setting_to_the_single_config():
    cfg = with_grid(
        SEG, dict(name='a', lr=1e-4), dict(name='b', lr=2e-3, weight_decay=0.0, taps=[8, 9, 10, 11])
    )
    a, b = head_configs(cfg).values()
    single = Config.fromfile(SEG)
    assert a.optim_wrapper.optimizer.lr == 1e-4
    assert a.model == single.model and 'probe_grid' not in a
    assert b.optim_wrapper.optimizer.weight_decay == 0.0
    assert list(b.model.backbone.out_indices) == [8, 9, 10, 11]
    assert b.model.decode_head.in_channels == [384] * 4


def test_depth_taps_and_bn_set_the_depth_head():
    cfg = with_grid(DEPTH, dict(name='lin4_bn', taps=[2, 5, 8, 11], bn=True))
    (head,) = head_configs(cfg).values()
    assert head.model.backbone.out_indices == (2, 5, 8, 11)
    assert head.model.decode_head.num_inputs == 4
    assert head.model.decode_head.with_bn is True and head.model.decode_head.norm_cfg
    assert selection(cfg) == ('abs_rel', 'less')  # the config's save_best


def test_grid_config_trains_every_head():
    cfg = with_grid(SEG, dict(name='a', lr=1e-4), dict(name='b', lr=1e-3))
    grid = grid_config(cfg)
    assert grid.model.type == 'ProbeGrid' and list(grid.model.probes) == ['a', 'b']
    assert grid.optim_wrapper.constructor == 'ProbeGridOptimWrapperConstructor'
    assert grid.val_evaluator.type == 'ProbeGridMetric'
    assert grid.custom_hooks[-1].select == ['mIoU', 'greater']
    assert grid_config(grid) is grid
    plain = Config.fromfile(SEG)
    assert grid_config(plain) is plain


def test_a_product_of_settings_names_its_heads_by_what_varies():
    cfg = Config.fromfile(SEG)
    cfg.probe_grid = dict(lr=[1e-4, 2.5e-3], taps=dict(last1=[11], last2=[10, 11]))
    heads = head_configs(cfg)
    assert list(heads) == ['lr0p0001_last1', 'lr0p0001_last2', 'lr0p0025_last1', 'lr0p0025_last2']
    assert heads['lr0p0025_last2'].optim_wrapper.optimizer.lr == 2.5e-3
    assert list(heads['lr0p0025_last2'].model.backbone.out_indices) == [10, 11]


@pytest.mark.parametrize(
    'grid, match',
    [
        (dict(lr=1e-3), 'lr must be a list of values'),
        (dict(taps=[[11]]), 'taps must be a dict of named tap sets'),
        (dict(lr=[]), 'lr is empty'),
        (dict(lrs=[1e-3]), "unknown keys \\['lrs'\\] \\(did you mean 'lr'"),
    ],
)
def test_bad_products_are_refused(grid, match):
    cfg = Config.fromfile(SEG)
    cfg.probe_grid = grid
    with pytest.raises(ConfigError, match=match):
        head_configs(cfg)


@pytest.mark.parametrize(
    'heads, grid, error, match',
    [
        ((), {}, ConfigError, 'heads is empty'),
        ((dict(name='a'), dict(name='a', lr=1.0)), {}, ConfigError, "two heads are named 'a'"),
        ((dict(name='a', learning_rate=1.0),), {}, ConfigKeyError, "'learning_rate' is not a head"),
        ((dict(name='a', taps=[11, 12]),), {}, ConfigError, r'taps \[12\] are outside'),
        ((dict(name='a', taps=[]),), {}, ConfigError, 'distinct block indices'),
        ((dict(name='a', lr=0),), {}, ConfigError, 'lr must be above 0'),
        ((dict(name='a', bn=True),), {}, ConfigError, 'LinearDepthHead'),
        ((dict(name='a b'),), {}, ConfigError, 'name of letters'),
        ((dict(name='lr0.1'),), {}, ConfigError, 'name of letters'),
        ((dict(name='a'),), dict(lr=[0.1]), ConfigError, 'either heads'),
        ((dict(name='a'),), dict(select=('mIoU', 'up')), ConfigError, 'select'),
        ((dict(name='a'),), dict(chosen='mIoU'), ConfigKeyError, "unknown keys \\['chosen'\\]"),
    ],
)
def test_bad_grids_are_refused(heads, grid, error, match):
    with pytest.raises(error, match=match):
        grid_config(with_grid(SEG, *heads, **grid))


def test_a_backbone_that_trains_is_refused():
    cfg = with_grid(SEG, dict(name='a'))
    cfg.model.backbone.frozen_stages = -1
    with pytest.raises(ConfigError, match='frozen backbone'):
        grid_config(cfg)


def test_a_wrapper_that_cannot_step_heads_in_turn_and_tta_are_refused():
    cfg = with_grid(SEG, dict(name='a'))
    cfg.optim_wrapper.type = 'OptimWrapper'
    with pytest.raises(ConfigError, match='update_params_in_turn'):
        grid_config(cfg)
    cfg = with_grid(SEG, dict(name='a'))
    cfg.test_with_tta = True
    with pytest.raises(ConfigError, match='without test-time augmentation'):
        grid_config(cfg)


TECHNIQUE_PROBES = [
    'ade20k/linear_vit-b14-dinov2-spec_bnhead_8xb2-40k_ade20k-512x512.py',  # specialization
    'ade20k/linear_vit-b14-dinov2-plain_bnhead_8xb2-40k_ade20k-512x512.py',  # no LayerScale
    'nyu/lin4_vit-l14-dinov2-spec_8xb2-38k_nyu-416x544.py',
    'ade20k/linear_vit-b16-dinov3_bnhead_8xb2-40k_ade20k-512x512.py',  # RoPE, registers
]


@pytest.mark.parametrize('leaf', TECHNIQUE_PROBES)
def test_a_grid_of_a_technique_probe_builds_one_backbone_with_its_technique(leaf):
    from mmengine.registry import DefaultScope
    from mmseg.registry import MODELS

    import vitspec  # noqa: F401  (registers)

    cfg = Config.fromfile(ROOT / 'configs' / leaf)
    depth = cfg.model.backbone.num_layers
    cfg.probe_grid = dict(
        lr=[1e-4, 1e-3], taps=dict(last1=[depth - 1], last2=[depth - 2, depth - 1])
    )
    grid = grid_config(cfg)
    with DefaultScope.overwrite_default_scope('mmseg'), torch.device('meta'):
        model = MODELS.build(grid.model)
    single = head_configs(cfg)['lr0p0001_last1'].model.backbone
    assert {k: v for k, v in single.items() if k != 'out_indices'} == {
        k: v for k, v in grid.model.probes['lr0p001_last2'].backbone.items() if k != 'out_indices'
    }
    assert list(model.backbone.out_indices) == [depth - 2, depth - 1]
    assert len(model.probes) == 4 and sum(1 for _ in model.backbone.parameters()) > 0
