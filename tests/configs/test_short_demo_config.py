"""The short demo job (tools/demo.sh without --long) is the main demo job on smaller images for
fewer iterations: every other key of the built config is the main job's, and every resize and
crop of its pipelines is at its image size."""

from mmengine.config import Config

from tests.utils import ROOT
from vitspec.config.tree import flatten, plain

DEMO = ROOT / 'configs' / 'demo'
SHORT = DEMO / 'fcn_specvit-tiny-p8_2xb4-150it_demo-ade20k-80x80.py'
LONG = DEMO / 'fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
SIZED = {'RandomResize': 'scale', 'Resize': 'scale', 'RandomCrop': 'crop_size'}


def built(path):
    return flatten(plain(Config.fromfile(path).to_dict()))


def test_the_short_demo_differs_from_the_main_job_in_size_and_schedule_alone():
    short, long = built(SHORT), built(LONG)
    differ = {k.split('.')[0] for k in short.keys() | long.keys() if short.get(k) != long.get(k)}
    assert differ == {
        'image_size',  # the short job's own variables
        'sized',
        'model',  # backbone.img_size
        'train_pipeline',
        'test_pipeline',
        'train_dataloader',
        'val_dataloader',
        'test_dataloader',
        'max_iters',
        'warmup_iters',
        'optim_wrapper',  # its lr
        'param_scheduler',
        'train_cfg',
        'default_hooks',  # the logger and checkpoint intervals
    }
    model = {k for k in short if k.startswith('model.') and short[k] != long.get(k)}
    assert model == {'model.backbone.img_size'}
    assert short['model.backbone.img_size'] == 80


def test_every_resize_and_crop_of_the_short_demo_is_at_its_image_size():
    cfg = Config.fromfile(SHORT)
    seen = set()
    for split in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        for step in cfg[split].dataset.pipeline:
            if step.type in SIZED:
                assert tuple(step[SIZED[step.type]]) == (80, 80), (split, step)
                seen.add(step.type)
    assert seen == set(SIZED)
    # the same data, loaders and checks as the main job
    main = Config.fromfile(LONG)
    kinds = [s.type for s in cfg.train_dataloader.dataset.pipeline]
    assert kinds == [s.type for s in main.train_dataloader.dataset.pipeline]


def test_the_short_schedule_warms_up_decays_and_ends_within_its_iterations():
    cfg = Config.fromfile(SHORT)
    assert cfg.train_cfg.max_iters == cfg.max_iters == 150
    assert cfg.train_cfg.val_interval == cfg.default_hooks.checkpoint.interval == 150
    warm, poly = cfg.param_scheduler
    assert (warm.type, warm.end, poly.type, poly.begin, poly.end) == (
        'LinearLR',
        cfg.warmup_iters + 1,
        'PolyLR',
        cfg.warmup_iters,
        cfg.max_iters,
    )
