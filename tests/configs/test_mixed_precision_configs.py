"""The recipes published with mixed precision train so by default: ViTDet (detectron2's
projects/ViTDet configs, train.amp.enabled=True) and mmseg's MAE / BEiT UPerNet 160k schedule
(configs/mae, configs/beit: AmpOptimWrapper), both float16 with dynamic loss scaling."""

import pytest
from mmengine.config import Config

from tests.utils import ROOT
from vitspec.runs.runner import enable_amp

SCHEDULES = [
    'configs/_base_/schedules/schedule_vitdet_lsj-100e.py',
    'configs/_base_/schedules/schedule_layer_decay_160k.py',
]
AMP_CONFIGS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / 'configs').glob('*/*-amp-*.py'))


def test_the_published_amp_recipes_are_among_them():
    names = ' '.join(AMP_CONFIGS)
    assert 'coco/mask-rcnn_vit-b16-mae_simplefpn' in names  # ViTDet
    assert 'ade20k/upernet_vit-b16-mae_f2p' in names  # mmseg's MAE UPerNet


@pytest.mark.parametrize('path', SCHEDULES + AMP_CONFIGS)
def test_trains_in_fp16_with_dynamic_loss_scaling_and_the_finite_loss_guard(path):
    wrapper = Config.fromfile(ROOT / path).optim_wrapper
    assert wrapper.type == 'FiniteLossAmpOptimWrapper'
    assert wrapper.get('dtype') in (None, 'float16')
    assert wrapper.get('loss_scale', 'dynamic') == 'dynamic'


@pytest.mark.parametrize('path', SCHEDULES)
def test_amp_switch_keeps_the_recipe_or_makes_it_bf16(path):
    cfg = Config.fromfile(ROOT / path)
    recipe = cfg.optim_wrapper.to_dict()
    assert enable_amp(cfg).optim_wrapper.to_dict() == recipe
    bf16 = enable_amp(Config.fromfile(ROOT / path), 'bf16').optim_wrapper
    assert bf16.type == 'FiniteLossAmpOptimWrapper'
    assert (bf16.dtype, bf16.loss_scale) == ('bfloat16', dict(enabled=False))
