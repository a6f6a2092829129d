"""Linear probing trains the head only: the backbone does not move, stays in eval mode and has
no optimizer state; a backbone that is not frozen is refused."""

import copy

import pytest
import torch
from mmengine.config import Config
from mmengine.hooks import Hook

from tests.utils import ROOT, run_tool
from vitspec.errors import BackboneNotFrozenError
from vitspec.models import SpecViT
from vitspec.runs.runner import build_runner

CONFIG = ROOT / 'configs/demo/fcn_specvit-tiny-p8-plain_2xb4-500it_demo-ade20k-128x128.py'


@pytest.fixture(scope='module')
def demo_root(tmp_path_factory):
    out = tmp_path_factory.mktemp('demo')
    run_tool(
        [
            'tools/make_demo_data.py',
            '--out',
            out,
            '--datasets',
            'ade20k',
            '--num-train',
            8,
            '--num-val',
            2,
        ]
    )
    return out / 'ade20k' / 'ADEChallengeData2016'


class ModeRecorder(Hook):
    """(head.training, any backbone module training) during every training iteration."""

    def __init__(self):
        self.seen = []

    def after_train_iter(self, runner, batch_idx, data_batch=None, outputs=None):
        model = runner.model
        self.seen.append(
            (model.decode_head.training, any(m.training for m in model.backbone.modules()))
        )


def probe_config(root, work_dir, checkpoint, frozen=True) -> Config:
    cfg = Config.fromfile(CONFIG)
    cfg.model.backbone.update(
        num_layers=2,
        embed_dims=32,
        num_heads=2,
        out_indices=[1],
        drop_path_rate=0.1,
        frozen_stages=2 if frozen else -1,
        init_cfg=dict(type='Pretrained', checkpoint=str(checkpoint)),
    )
    cfg.model.decode_head = dict(
        type='LinearBNHead',
        in_channels=[32],
        num_classes=150,
        norm_cfg=dict(type='BN'),
        loss_decode=dict(type='CrossEntropyLoss', loss_weight=1.0),
    )
    cfg.custom_hooks = [*cfg.custom_hooks, dict(type='LinearProbeHook')]
    cfg.optim_wrapper.update(
        constructor='LayerDecayOptimWrapperConstructor', paramwise_cfg=dict(decay_rate=1.0)
    )
    cfg.train_dataloader.batch_size = 2
    for split in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        cfg[split].dataset.data_root = str(root)
    cfg.train_cfg.update(max_iters=4, val_interval=100)
    cfg.default_hooks.checkpoint.interval = 100
    cfg.default_hooks.logger.interval = 1
    cfg.work_dir = str(work_dir)
    cfg.launcher = 'none'
    return cfg


def save_pretrained_backbone(cfg) -> dict:
    """Writes the checkpoint that cfg's backbone loads; returns its tensors."""
    args = {k: v for k, v in cfg.model.backbone.items() if k not in ('type', 'init_cfg')}
    backbone = SpecViT(**args)
    backbone.init_weights()
    torch.save(backbone.state_dict(), cfg.model.backbone.init_cfg.checkpoint)
    return copy.deepcopy(backbone.state_dict())


@pytest.mark.slow
def test_backbone_weights_do_not_move(demo_root, tmp_path):
    cfg = probe_config(demo_root, tmp_path / 'work', tmp_path / 'backbone.pth')
    before = save_pretrained_backbone(cfg)
    runner = build_runner(cfg)
    modes = ModeRecorder()
    runner.register_hook(modes)
    head_before = copy.deepcopy(runner.model.decode_head.state_dict())
    runner.train()

    backbone = runner.model.backbone
    after = backbone.state_dict()
    assert after.keys() == before.keys()
    moved = [k for k in before if not torch.equal(before[k], after[k])]
    assert not moved, f'backbone tensors changed: {moved}'
    head_after = runner.model.decode_head.state_dict()
    assert not torch.equal(head_before['conv_seg.weight'], head_after['conv_seg.weight'])
    assert not torch.equal(head_before['bn.running_mean'], head_after['bn.running_mean'])

    assert modes.seen == [(True, False)] * 4, 'head trains, backbone (norms, drop-path) in eval'
    assert not any(p.requires_grad for p in backbone.parameters())
    state = runner.optim_wrapper.optimizer.state
    backbone_ids = {id(p) for p in backbone.parameters()}
    assert state and not any(id(p) in backbone_ids for p in state)


@pytest.mark.slow
def test_unfrozen_backbone_is_refused(demo_root, tmp_path):
    cfg = probe_config(demo_root, tmp_path / 'work', tmp_path / 'backbone.pth', frozen=False)
    save_pretrained_backbone(cfg)
    runner = build_runner(cfg)
    with pytest.raises(BackboneNotFrozenError, match='backbone parameters still train'):
        runner.train()
