"""``--cfg-options`` on the key a config variable flows into under its own name
(``train_cfg.max_iters``, set from ``max_iters``): the other keys the config computed from that
variable follow it, recomputed by the config's own expressions, or are named in a refusal."""

import pytest

from tests.tools.test_config_errors import args_for
from tests.utils import ROOT
from vitspec.runs.runner import config_from_args

DEMOS = ROOT / 'configs/demo'
EOMT = DEMOS / 'eomt_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
DET = DEMOS / 'mask-rcnn_specvit-tiny-p8_simplefpn_2xb4-800it_demo-coco-160x160.py'


def anneal(cfg):
    return next(h for h in cfg.custom_hooks if h.type == 'MaskAnnealingHook')


def test_eomt_mask_annealing_follows_train_cfg_max_iters():
    """max_iters=6 kept the 500-iteration annealing steps (83, 166, 250): masks never faded."""
    cfg = config_from_args(args_for(EOMT, 'train_cfg.max_iters=6'))
    hook = anneal(cfg)
    assert (hook.start_iters, hook.end_iters) == ([1, 2], [2, 3])  # max_iters // 6 = 1
    assert cfg.train_cfg.val_interval == 6
    # the poly decay begins after the warm-up's 50 iterations, after these 6: its end, 6 when
    # recomputed, would come before its begin, which mmengine refuses; left as written
    assert (cfg.param_scheduler[1].begin, cfg.param_scheduler[1].end) == (50, 500)
    cfg = config_from_args(args_for(EOMT, 'train_cfg.max_iters=120'))
    assert (cfg.param_scheduler[1].begin, cfg.param_scheduler[1].end) == (50, 120)


def test_mask_rcnn_lr_drop_follows_train_cfg_max_iters():
    """max_iters=100 kept the milestone at 640: the lr never dropped."""
    cfg = config_from_args(args_for(DET, 'train_cfg.max_iters=100'))
    assert cfg.param_scheduler[1].milestones == [80]  # int(max_iters * 0.8)
    assert cfg.param_scheduler[1].end == cfg.default_hooks.checkpoint.interval == 100


def test_a_derived_key_given_beside_it_keeps_its_value():
    options = ('train_cfg.max_iters=100', 'param_scheduler.1.milestones=[50]')
    cfg = config_from_args(args_for(DET, *options))
    assert cfg.param_scheduler[1].milestones == [50] and cfg.param_scheduler[1].end == 100


def test_a_key_holding_the_variable_under_another_name_moves_alone():
    cfg = config_from_args(args_for(DET, 'default_hooks.checkpoint.interval=10'))
    assert cfg.train_cfg.max_iters == 800 and cfg.param_scheduler[1].milestones == [640]


def test_a_new_derived_key_is_followed_without_code_of_its_own(tmp_path):
    """A hook a new config derives from _base_.max_iters is recomputed like the others."""
    config = tmp_path / 'child.py'
    config.write_text(
        f"_base_ = ['{DET}']\n"
        'half = _base_.max_iters // 2\n'
        "custom_hooks = [*_base_.custom_hooks, dict(type='EMAHook', begin_iter=half + 1)]\n"
    )
    cfg = config_from_args(args_for(config, 'train_cfg.max_iters=100'))
    assert cfg.custom_hooks[-1].begin_iter == 51
    assert cfg.param_scheduler[1].milestones == [80]


def test_a_derived_key_that_needs_another_variable_is_named(tmp_path):
    config = tmp_path / 'c.py'
    config.write_text(
        'max_iters = 100\nwarmup = 10\n'
        'train_cfg = dict(max_iters=max_iters)\n'
        "param_scheduler = [dict(type='PolyLR', begin=warmup, end=max_iters - warmup)]\n"
    )
    with pytest.raises(ValueError, match='computed other keys from that variable') as info:
        config_from_args(args_for(config, 'train_cfg.max_iters=6'))
    assert (
        'Set them too, in the same --cfg-options: param_scheduler.0.end (= max_iters - warmup)'
        in str(info.value)
    )
    given = ('train_cfg.max_iters=6', 'param_scheduler.0.end=4')
    assert config_from_args(args_for(config, *given)).param_scheduler[0].end == 4


def test_a_variable_with_several_keys_of_its_name_moves_none_of_the_others(tmp_path):
    """crop_size is the train crop's and the slide window's: setting one is not the other."""
    config = tmp_path / 'c.py'
    config.write_text(
        'crop_size = (64, 64)\n'
        "model = dict(test_cfg=dict(mode='slide', crop_size=crop_size, stride=(32, 32)))\n"
        "train_pipeline = [dict(type='RandomCrop', crop_size=crop_size)]\n"
        'train_dataloader = dict(dataset=dict(pipeline=train_pipeline))\n'
    )
    cfg = config_from_args(args_for(config, 'model.test_cfg.crop_size=(32,32)'))
    assert cfg.train_dataloader.dataset.pipeline[0].crop_size == (64, 64)
