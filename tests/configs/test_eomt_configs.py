"""EoMT's ledger configs: their length is upstream's epochs as Lightning counts them on 4 GPUs x 4
(DistributedSampler padding, drop_last per GPU), which upstream's annealing steps confirm (the
first is a sixth of the run), and their datasets leave out single-value annotations as upstream's
check_empty_targets does."""

import math

import pytest
from mmengine.config import Config

from tests.utils import ROOT

EOMT = {  # leaf: (epochs, batches per epoch); Cityscapes' from its 2,975 training images
    'configs/cityscapes/eomt_vit-l16-dinov2-reg4_4xb4-20k_cityscapes-1024x1024.py': (
        107,
        math.ceil(2975 / 4) // 4,
    ),
    # ADE20K's images after check_empty_targets are not counted here: 1,262 is the batch count
    # whose annealing step matches upstream's (tested below)
    'configs/ade20k/eomt_vit-l16-dinov2-reg4_4xb4-39k_ade20k-512x512.py': (31, 1262),
}


def annealing(cfg):
    return next(h for h in cfg.custom_hooks if h['type'] == 'MaskAnnealingHook')


@pytest.mark.parametrize('leaf', sorted(EOMT))
def test_iterations_are_upstream_epochs_of_lightning_batches(leaf):
    cfg = Config.fromfile(ROOT / leaf)
    epochs, batches = EOMT[leaf]
    assert cfg.train_dataloader.batch_size == 4 and '4xb4' in leaf
    assert cfg.train_cfg.max_iters == epochs * batches
    assert cfg.param_scheduler[-1].end == cfg.train_cfg.max_iters
    assert annealing(cfg).start_iters[0] == cfg.train_cfg.max_iters // 6


def test_ade20k_batch_count_is_the_only_one_giving_upstreams_annealing_step():
    leaf = 'configs/ade20k/eomt_vit-l16-dinov2-reg4_4xb4-39k_ade20k-512x512.py'
    step = annealing(Config.fromfile(ROOT / leaf)).start_iters[0]
    assert [b for b in range(1000, 1400) if 31 * b // 6 == step] == [EOMT[leaf][1]]


@pytest.mark.parametrize('leaf', sorted(EOMT))
def test_single_value_annotations_are_left_out_as_upstream(leaf):
    cfg = Config.fromfile(ROOT / leaf)
    for loader in (cfg.train_dataloader, cfg.val_dataloader, cfg.test_dataloader):
        assert loader.dataset.type.startswith('EoMT')
        assert loader.dataset.check_empty_targets is True
