"""EoMT's COCO ledger configs: their length is upstream's epochs of 7,391 panoptic batches (the
only count that gives both upstream's 12-epoch and 24-epoch annealing steps) or 7,329 instance
batches (the images with an annotation), and each builds its model (eval forward on the meta
device), optimizer and pipelines."""

import math
from pathlib import Path

import pytest
import torch
from mmdet.registry import MODELS
from mmengine.config import Config
from mmengine.dataset import Compose
from mmengine.optim import build_optim_wrapper
from mmengine.registry import DefaultScope

import vitspec  # noqa: F401  (registers)
from tests.shrink_config import cpu_optim_wrapper
from tests.utils import ROOT

LEAVES = sorted(p.relative_to(ROOT) for p in (ROOT / 'configs/coco').glob('eomt_*.py'))


SCHEDULES = ROOT / 'configs/_base_/schedules'


def epochs(leaf: Path) -> int:
    return 24 if '177k' in leaf.name else 12


def batches_per_epoch(leaf: Path) -> int:
    return 7329 if 'coco-instance' in leaf.name else 7391


def lightning_batches(images: int, gpus: int = 4, batch: int = 4) -> int:
    """Batches per epoch and GPU: DistributedSampler pads to ceil(N / gpus), drop_last batches."""
    return math.ceil(images / gpus) // batch


def test_7391_batches_is_the_only_count_giving_upstreams_annealing_steps():
    # tue-mps/eomt: first step 14,782 (12 epochs, EoMT-L) and 29,564 (24 epochs, S / B 2x)
    counts = [b for b in range(7000, 7800) if 12 * b // 6 == 14782 and 24 * b // 6 == 29564]
    assert counts == [7391]


def test_the_schedule_comments_state_the_image_counts_their_batches_allow():
    """schedule_eomt_89k.py: 7,391 panoptic batches per epoch; schedule_eomt_88k.py: 7,329
    instance batches for N of about 117,266 (118,287 train2017 images, 1,021 without an
    annotation); each comment gives the range of N that yields its count."""
    for name, batches in (('schedule_eomt_89k.py', 7391), ('schedule_eomt_88k.py', 7329)):
        text = ' '.join(line.lstrip('# ') for line in (SCHEDULES / name).read_text().splitlines())
        images = [
            n
            for n in range(16 * batches - 16, 16 * batches + 32)
            if lightning_batches(n) == batches
        ]
        assert f'{images[0]:,}-{images[-1]:,}' in text, name
        assert f'{12 * batches:,} iterations' in text, name
    per_gpu = [p for p in range(4 * 7391, 4 * 7391 + 8) if p // 4 == 7391]
    assert (
        f'{per_gpu[0]:,}-{per_gpu[-1]:,} images per GPU'
        in (SCHEDULES / 'schedule_eomt_89k.py').read_text()
    )
    assert lightning_batches(118287 - 1021) == 7329
    assert 12 * 7329 == 87948 and 2 * 7329 == 14658


@pytest.mark.parametrize('leaf', LEAVES, ids=str)
def test_iterations_are_upstream_epochs_and_the_model_builds(leaf):
    cfg = Config.fromfile(ROOT / leaf)
    assert cfg.train_dataloader.batch_size == 4 and '4xb4' in leaf.name
    assert cfg.train_cfg.max_iters == epochs(leaf) * batches_per_epoch(leaf)
    assert cfg.param_scheduler[-1].end == cfg.train_cfg.max_iters
    assert cfg.default_hooks.checkpoint.interval == batches_per_epoch(leaf)
    if 'coco-instance' in leaf.name:  # check_val_every_n_epoch 2
        assert cfg.train_cfg.val_interval == 2 * batches_per_epoch(leaf)
    hook = next(h for h in cfg.custom_hooks if h['type'] == 'MaskAnnealingHook')
    # upstream's steps, the instance configs' copied from the panoptic ones
    assert hook.start_iters[0] == epochs(leaf) * 7391 // 6
    assert len(hook.start_iters) == cfg.model.num_blocks
    with DefaultScope.overwrite_default_scope('mmdet'), torch.device('meta'):
        model = MODELS.build(cfg.model).eval()
        size = cfg.model.backbone.img_size
        masks, classes = model.network(torch.empty(1, 3, *size), last_only=True)
    assert classes[-1].shape == (1, 200, 81 + cfg.model.num_stuff_classes)
    assert masks[-1].shape[-2:] == (size[0] // 4, size[1] // 4)
    cpu_optim_wrapper(cfg)
    with DefaultScope.overwrite_default_scope('mmdet'):
        build_optim_wrapper(model, cfg.optim_wrapper)
        Compose(cfg.train_dataloader.dataset.pipeline)
        Compose(cfg.test_dataloader.dataset.pipeline)
