"""EoMT's COCO ledger configs: their length is upstream's epochs of 7,391 batches (the only count
that gives both upstream's 12-epoch and 24-epoch annealing steps), and each builds its model
(eval forward on the meta device), optimizer and pipelines."""

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


def epochs(leaf: Path) -> int:
    return 24 if '177k' in leaf.name else 12


def test_7391_batches_is_the_only_count_giving_upstreams_annealing_steps():
    # tue-mps/eomt: first step 14,782 (12 epochs, EoMT-L) and 29,564 (24 epochs, S / B 2x)
    counts = [b for b in range(7000, 7800) if 12 * b // 6 == 14782 and 24 * b // 6 == 29564]
    assert counts == [7391]


@pytest.mark.parametrize('leaf', LEAVES, ids=str)
def test_iterations_are_upstream_epochs_and_the_model_builds(leaf):
    cfg = Config.fromfile(ROOT / leaf)
    assert cfg.train_dataloader.batch_size == 4 and '4xb4' in leaf.name
    assert cfg.train_cfg.max_iters == epochs(leaf) * 7391
    assert cfg.param_scheduler[-1].end == cfg.train_cfg.max_iters
    hook = next(h for h in cfg.custom_hooks if h['type'] == 'MaskAnnealingHook')
    assert hook.start_iters[0] == cfg.train_cfg.max_iters // 6
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
