"""load_from, resume and tools/test.py's checkpoint are loaded strictly: a checkpoint of another
model is an error naming the file and the keys, not a run with half of its weights left random."""

import pytest
import torch
from mmengine.config import Config

from tests.utils import ROOT, make_demo_data
from vitspec.checkpoints.mismatch import Mismatch, describe_mismatch
from vitspec.errors import CheckpointError
from vitspec.runs.evaluation import enable_tta
from vitspec.runs.runner import build_runner

CONFIG = ROOT / 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'


@pytest.fixture(scope='module')
def demo_root(tmp_path_factory):
    return make_demo_data(tmp_path_factory.mktemp('demo'), 'ade20k', 4, 1)


def tiny_config(root, work_dir, width=32, **runner_args) -> Config:
    cfg = Config.fromfile(CONFIG)
    cfg.model.backbone.update(num_layers=2, embed_dims=width, num_heads=2, out_indices=[1])
    cfg.model.decode_head.update(in_channels=width, channels=16, norm_cfg=dict(type='BN'))
    cfg.train_dataloader.batch_size = 2
    cfg.train_dataloader.num_workers = 0
    cfg.train_dataloader.persistent_workers = False
    for split in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        cfg[split].dataset.data_root = str(root)
    cfg.train_cfg.update(max_iters=1, val_interval=100)
    cfg.default_hooks.checkpoint.interval = 1
    cfg.default_hooks.logger.interval = 1
    cfg.work_dir = str(work_dir)
    cfg.launcher = 'none'
    cfg.update(runner_args)
    return cfg


@pytest.fixture(scope='module')
def narrow_checkpoint(demo_root, tmp_path_factory):
    work = tmp_path_factory.mktemp('narrow')
    build_runner(tiny_config(demo_root, work)).train()
    return work / 'iter_1.pth'


def test_runtime_configs_name_the_strict_runner():
    assert Config.fromfile(CONFIG).runner_type == 'CheckedRunner'


def test_load_from_of_another_width_is_refused(demo_root, narrow_checkpoint, tmp_path):
    cfg = tiny_config(demo_root, tmp_path / 'wide', width=48, load_from=str(narrow_checkpoint))
    runner = build_runner(cfg)
    with pytest.raises(CheckpointError) as info:
        runner.train()
    message = str(info.value)
    assert f'{narrow_checkpoint} does not fit the model of this config' in message
    assert 'shape mismatches (' in message
    assert 'backbone.patch_embed.proj.weight: checkpoint (32, 3, 8, 8) vs model (48, 3, 8, 8)' in (
        message
    )
    assert not (tmp_path / 'wide' / 'iter_1.pth').exists()


def test_resume_from_a_file_of_another_model_names_it(demo_root, narrow_checkpoint, tmp_path):
    cfg = tiny_config(
        demo_root, tmp_path / 'wide', width=48, resume=True, load_from=str(narrow_checkpoint)
    )
    cfg.train_cfg.max_iters = 2
    with pytest.raises(CheckpointError, match=f'{narrow_checkpoint} does not fit'):
        build_runner(cfg).train()


def test_load_from_of_the_same_model_loads(demo_root, narrow_checkpoint, tmp_path):
    cfg = tiny_config(demo_root, tmp_path / 'same', load_from=str(narrow_checkpoint))
    cfg.train_cfg.max_iters = 0
    runner = build_runner(cfg)
    runner.train()
    saved = torch.load(narrow_checkpoint, weights_only=False)['state_dict']
    own = runner.model.state_dict()
    assert all(torch.equal(saved[k], own[k]) for k in saved)


def test_strict_load_loads_into_a_tta_model(demo_root, narrow_checkpoint, tmp_path):
    cfg = tiny_config(demo_root, tmp_path / 'tta')
    enable_tta(cfg)
    runner = build_runner(cfg)
    runner.load_checkpoint(str(narrow_checkpoint))
    saved = torch.load(narrow_checkpoint, weights_only=False)['state_dict']
    own = runner.model.module.state_dict()
    assert all(torch.equal(saved[k], own[k]) for k in saved)


def test_strict_load_names_missing_blocks(demo_root, narrow_checkpoint, tmp_path):
    cfg = tiny_config(demo_root, tmp_path / 'deep')
    cfg.model.backbone.update(num_layers=4, out_indices=[3])
    with pytest.raises(CheckpointError) as info:
        build_runner(cfg).load_checkpoint(str(narrow_checkpoint))
    assert 'missing keys (24): backbone.blocks.2.* (12), backbone.blocks.3.* (12)' in str(
        info.value
    )


def test_a_deliberate_partial_load_from_is_an_opt_in(demo_root, narrow_checkpoint, tmp_path):
    def deeper_model(work_dir, **runner_args):
        cfg = tiny_config(demo_root, tmp_path / work_dir, randomness=dict(seed=0), **runner_args)
        cfg.model.backbone.update(num_layers=4, out_indices=[3])
        cfg.train_cfg.max_iters = 0
        return cfg

    with pytest.raises(CheckpointError, match='missing keys'):
        build_runner(deeper_model('strict', load_from=str(narrow_checkpoint))).train()
    fresh = build_runner(deeper_model('fresh'))
    fresh.train()
    runner = build_runner(
        deeper_model('partial', load_from=str(narrow_checkpoint), load_from_strict=False)
    )
    runner.train()
    saved = torch.load(narrow_checkpoint, weights_only=False)['state_dict']
    own, init = runner.model.state_dict(), fresh.model.state_dict()
    assert all(torch.equal(saved[k], own[k]) for k in saved)
    deeper = [k for k in own if k.startswith(('backbone.blocks.2.', 'backbone.blocks.3.'))]
    assert deeper and all(torch.equal(init[k], own[k]) for k in deeper)


def test_summary_names_a_few_and_counts_all():
    mismatch = Mismatch(
        missing=[f'backbone.blocks.{i}.{p}' for i in range(10) for p in ('a.weight', 'b.bias')],
        unexpected=['head.extra.weight'],
        shapes=[f'k{i}: checkpoint (1,) vs model (2,)' for i in range(9)],
    )
    lines = describe_mismatch(mismatch, few=3)
    assert lines[0] == (
        '  missing keys (20): backbone.blocks.0.* (2), backbone.blocks.1.* (2), '
        'backbone.blocks.2.* (2), ... 7 more'
    )
    assert lines[1] == '  unexpected keys (1): head.extra.weight'
    assert lines[2].startswith('  shape mismatches (9): k0: checkpoint (1,) vs model (2,), ')
    assert lines[2].endswith('... 6 more')
    assert len(describe_mismatch(mismatch)[0].split(', ')) == 20  # few=None: every key
