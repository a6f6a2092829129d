"""One warm-up rule for every schedule: the lr reaches the base lr (times the schedule it
multiplies) exactly at the published warm-up end, as mmcv's warmup_iters, detectron2's
warmup_length and DINOv3's warmup_iters define it. mmengine's LinearLR reaches its end factor at
step end - 1, so each config writes end=warmup_iters + 1."""

import pytest
import torch
from mmengine.config import Config
from mmengine.optim import build_optim_wrapper
from mmengine.registry import PARAM_SCHEDULERS

from tests.utils import ROOT
from vitspec.config.digest import leaf_configs

# The published warm-up length of each schedule (the sources are named in each file's header).
PUBLISHED = {
    '_base_/schedules/schedule_linear_40k.py': 1500,  # DINOv2 hosted linear configs
    '_base_/schedules/schedule_layer_decay_160k.py': 1500,  # mmseg MAE UPerNet
    '_base_/schedules/schedule_vitdet_lsj-100e.py': 250,  # detectron2 ViTDet
    '_base_/schedules/schedule_depth_38k.py': 12800,  # DINOv2 hosted depth configs
    '_base_/schedules/schedule_dinov3_depth_38k.py': 12800,  # DINOv3 config-nyu.yaml
    '_base_/schedules/schedule_dinov3_linear_40k.py': 1500,  # DINOv3 linear segmentation
    '_base_/schedules/schedule_demo.py': 50,
    '_base_/schedules/schedule_eomt_39k.py': 1500,  # tue-mps/eomt: the backbone's 500 + 1000
    '_base_/schedules/schedule_eomt_20k.py': 1500,
    '_base_/schedules/schedule_eomt_89k.py': 1500,
    '_base_/schedules/schedule_eomt_88k.py': 1500,
    '_base_/recipes/eomt_dinov2-reg4_4xb4-177k_coco-panoptic-640x640.py': 1500,
    '_base_/recipes/vit-adapter-m2f_16xb1-80k_ade20k-896x896.py': 1500,  # ViT-Adapter M2F 896
    '_base_/schedules/schedule_dinov3_m2f_20k.py': 1500,  # DINOv3 D.10: 1.5k warm-up
    'ade20k/upernet_vit-l16-mae_f2p_8xb2-amp-160k_ade20k-512x512.py': 3000,  # mmseg BEiT-L
    'ade20k/upernet_vit-l16-deit3_f2p_8xb2-amp-160k_ade20k-512x512.py': 3000,  # mmseg BEiT-L
    'demo/lin4_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py': 20,
    'demo/fcn_specvit-tiny-p8_2xb4-150it_demo-ade20k-80x80.py': 15,  # tools/demo.sh's short job
    'demo/mask-rcnn_specvit-tiny-p8_simplefpn_2xb4-800it_demo-coco-160x160.py': 50,
    '_base_/schedules/schedule_plain-detr_12e.py': 1000,  # impiga/Plain-DETR --warmup 1000
    'demo/plain-detr_specvit-tiny-p8_2xb4-800it_demo-coco-160x160.py': 50,
    'coco/dino-4scale_vit-l16-mae_simplefpn_8xb2-12e_coco-1333x800.py': 250,  # detrex ViT-L
    'coco/dino-4scale_vit-l16-mae_simplefpn_8xb2-50e_coco-1333x800.py': 250,
    'demo/dino-4scale_specvit-tiny-p8_simplefpn_1xb4-300it_demo-coco-128x128.py': 20,
}
# Published schedules without a warm-up (detrex's DINO-ViTDet-Base: coco_schedule.py
# default_coco_scheduler(epochs, decay_epochs, warmup_epochs=0))
NO_WARMUP = {
    '_base_/recipes/dino-4scale_vitdet_simplefpn_8xb2-12e_coco-1333x800.py',
    'coco/dino-4scale_vit-b16-mae_simplefpn_8xb2-50e_coco-1333x800.py',
}
CONFIGS = ROOT / 'configs'


def lr_trace(cfg, steps, schedules):
    """The lr of the first ``steps`` iterations at base lr 1 under ``schedules`` (entries of
    the config's param_scheduler), stepped as training steps them."""
    optimizer = dict(cfg.optim_wrapper.optimizer, lr=1.0)
    wrapper = build_optim_wrapper(
        torch.nn.Linear(1, 1), dict(type='OptimWrapper', optimizer=optimizer)
    )
    schedulers = [PARAM_SCHEDULERS.build(dict(s, optimizer=wrapper)) for s in schedules]
    wrapper.step()
    lrs = []
    for _ in range(steps):
        lrs.append(wrapper.optimizer.param_groups[0]['lr'])
        for scheduler in schedulers:
            scheduler.step()
    return lrs


@pytest.mark.filterwarnings('ignore:Detected call of `scheduler.step()`')
@pytest.mark.parametrize('name', sorted(PUBLISHED))
def test_lr_reaches_base_exactly_at_the_published_warmup_end(name):
    cfg = Config.fromfile(CONFIGS / name)
    warmup = PUBLISHED[name]
    assert cfg.warmup_iters == warmup
    warm = next(s for s in cfg.param_scheduler if s.type == 'LinearLR')
    alone = lr_trace(cfg, warmup + 2, [warm])
    step = (1 - warm.start_factor) / warmup
    assert alone[0] == pytest.approx(warm.start_factor, rel=1e-9)
    assert alone[warmup - 1] == pytest.approx(1 - step, rel=1e-9)
    assert alone[warmup] == alone[warmup + 1] == pytest.approx(1.0, rel=1e-12)
    # Composed with the rest of the schedule, the warm-up's factor (the lr over the lr without
    # it) ends at the same step; a cosine's floor is not scaled by it, hence the tolerance.
    rest = [s for s in cfg.param_scheduler if s is not warm]
    composed = lr_trace(cfg, warmup + 2, cfg.param_scheduler)
    without = lr_trace(cfg, warmup + 2, rest)
    assert composed[warmup - 1] / without[warmup - 1] < 1 - step / 2
    assert composed[warmup] / without[warmup] == pytest.approx(1.0, abs=step / 4)
    assert composed[warmup + 1] / without[warmup + 1] == pytest.approx(1.0, abs=step / 4)


def test_every_config_with_its_own_schedule_is_listed():
    """A leaf that writes its own param_scheduler must be in PUBLISHED, with its source."""
    recipes = (CONFIGS / '_base_' / 'recipes').glob('*.py')
    own = {
        p.relative_to(CONFIGS).as_posix()
        for p in [*leaf_configs(CONFIGS), *recipes]
        if 'param_scheduler' in p.read_text()
    }
    schedules = {
        p.relative_to(CONFIGS).as_posix() for p in (CONFIGS / '_base_' / 'schedules').glob('*.py')
    }
    assert own | schedules == set(PUBLISHED) | NO_WARMUP


@pytest.mark.parametrize('name', sorted(NO_WARMUP))
def test_schedules_published_without_warmup_have_none(name):
    cfg = Config.fromfile(CONFIGS / name)
    assert not any(s.type == 'LinearLR' for s in cfg.param_scheduler)
    assert lr_trace(cfg, 3, cfg.param_scheduler) == [1.0, 1.0, 1.0]


# Schedules copied from mmcv 1.x configs (lr_config policy='poly' with warmup='linear'): mmcv's poly
# runs over all iterations and the warm-up multiplies it, lr(t) = (1 - t / T) ** p * (r + (1 - r)
# * min(t, W) / W) (mmcv/runner/hooks/lr_updater.py, PolyLrUpdaterHook and get_warmup_lr).
MMCV_POLY = {  # config: (power, warmup_ratio)
    '_base_/schedules/schedule_linear_40k.py': (1.0, 1e-6),  # DINOv2 hosted linear configs
    '_base_/recipes/vit-adapter-m2f_16xb1-80k_ade20k-896x896.py': (1.0, 1e-6),  # ViT-Adapter
}


@pytest.mark.filterwarnings('ignore:Detected call of `scheduler.step()`')
@pytest.mark.parametrize('name', sorted(MMCV_POLY))
def test_mmcv_poly_schedules_run_the_poly_over_all_iterations_under_the_warmup(name):
    cfg = Config.fromfile(CONFIGS / name)
    power, ratio = MMCV_POLY[name]
    total, warmup = cfg.train_cfg.max_iters, cfg.warmup_iters
    lrs = lr_trace(cfg, warmup + 600, cfg.param_scheduler)
    for t in (0, warmup // 2, warmup - 1, warmup, warmup + 1, warmup + 500):
        mmcv = (1 - t / total) ** power * (ratio + (1 - ratio) * min(t, warmup) / warmup)
        assert lrs[t] == pytest.approx(mmcv, rel=1e-5), t  # mmengine's chained factors: ~1e-6
