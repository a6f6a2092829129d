"""Every detection config builds its model, optimizer and pipelines, follows ViTDet's recipe
(methods.md §5.5), and plain/specialized configs differ by the technique line only."""
from pathlib import Path

import pytest
import torch
from mmengine.config import Config
from mmengine.dataset import Compose
from mmengine.optim import build_optim_wrapper
from mmengine.registry import DefaultScope

import vitspec  # noqa: F401  (registers)
from mmdet.registry import MODELS
from tests.utils import ROOT

COCO = sorted(p.relative_to(ROOT) for p in (ROOT / 'configs/coco').glob('*.py'))
DEMO = sorted(p.relative_to(ROOT) for p in (ROOT / 'configs/demo').glob('mask-rcnn_*.py'))
VITDET = {  # size: (global blocks, drop path, layer decay)
    'b16': ((2, 5, 8, 11), 0.1, 0.7),
    'l16': ((5, 11, 17, 23), 0.4, 0.8),
}


def build_model(cfg):
    with DefaultScope.overwrite_default_scope('mmdet'), torch.device('meta'):
        return MODELS.build(cfg.model)


@pytest.mark.parametrize('path', COCO + DEMO, ids=str)
def test_config_builds_model_optimizer_and_pipelines(path):
    cfg = Config.fromfile(ROOT / path)
    model = build_model(cfg)
    size = cfg.image_size
    with torch.no_grad():
        feats = model.extract_feat(torch.empty(1, 3, *size, device='meta'))
    assert [f.shape[-2:] for f in feats] == [
        (-(-size[0] // s), -(-size[1] // s)) for s in (4, 8, 16, 32, 64)]
    assert all(f.shape[1] == cfg.model.neck.out_channels for f in feats)
    with DefaultScope.overwrite_default_scope('mmdet'):
        build_optim_wrapper(model, cfg.optim_wrapper)
        Compose(cfg.train_pipeline)
        Compose(cfg.test_pipeline)
    assert cfg.default_scope == 'mmdet' and cfg.find_unused_parameters
    assert cfg.val_evaluator.type == 'CocoMetric'
    assert cfg.val_evaluator.metric == ['bbox', 'segm']


@pytest.mark.parametrize('path', COCO, ids=str)
def test_coco_config_follows_the_vitdet_recipe(path):
    cfg = Config.fromfile(ROOT / path)
    size = next(s for s in VITDET if f'vit-{s}-' in path.name)
    global_blocks, drop_path, decay = VITDET[size]
    backbone = cfg.model.backbone
    assert (backbone.patch_size, backbone.window_size) == (16, 14)
    assert tuple(backbone.global_attn_indexes) == global_blocks
    assert backbone.drop_path_rate == drop_path
    assert list(backbone.out_indices) == [backbone.num_layers - 1] and not backbone.final_norm
    assert cfg.model.neck.in_channels == backbone.embed_dims
    assert cfg.model.neck.scale_factors == (4.0, 2.0, 1.0, 0.5)
    assert cfg.model.rpn_head.num_convs == 2
    heads = cfg.model.roi_head
    assert heads.bbox_head.type == 'Shared4Conv1FCBBoxHead' and heads.mask_head.num_convs == 4
    for part in (cfg.model.neck, heads.bbox_head, heads.mask_head):
        assert part.norm_cfg.type == 'LN2d'

    optim = cfg.optim_wrapper
    assert optim.constructor == 'LayerDecayOptimWrapperConstructor'
    assert optim.paramwise_cfg.decay_rate == decay
    assert (optim.optimizer.type, optim.optimizer.lr, optim.optimizer.weight_decay) == (
        'AdamW', 1e-4, 0.1)
    warmup, steps = cfg.param_scheduler
    assert (warmup.type, warmup.end, warmup.start_factor) == ('LinearLR', 250, 0.001)
    assert steps.type == 'MultiStepLR' and steps.milestones == [163889, 177546]
    assert cfg.train_cfg.max_iters == 184375
    gpus, batch = map(int, path.name.split('_')[-2].split('-')[0].split('xb'))
    assert gpus * batch == cfg.auto_scale_lr.base_batch_size == 64
    assert cfg.train_dataloader.batch_size == batch

    assert cfg.image_size == (1024, 1024)
    jitter = next(t for t in cfg.train_pipeline if t.type == 'RandomResize')
    assert jitter.ratio_range == (0.1, 2.0) and jitter.scale == (1024, 1024)
    for pipeline in (cfg.train_pipeline, cfg.test_pipeline):
        assert pipeline[0].type == 'CheckedLoadImageFromFile'
        assert {'type': 'FixedSizePad', 'size': (1024, 1024), 'pad_val': {'img': (114, 114, 114)}} \
            in pipeline  # one position-embedding grid at train and test time
    assert cfg.train_dataloader.dataset.type == 'CheckedCocoDataset'


@pytest.mark.parametrize('size', sorted(VITDET))
def test_layer_decay_reaches_the_first_block(size):
    path = next(p for p in COCO if f'vit-{size}-plain' in p.name)
    cfg = Config.fromfile(ROOT / path)
    model = build_model(cfg)
    with DefaultScope.overwrite_default_scope('mmdet'):
        groups = build_optim_wrapper(model, cfg.optim_wrapper).optimizer.param_groups
    lr = {n: g['lr'] for g in groups for n in g['param_names']}
    depth, decay = cfg.model.backbone.num_layers, VITDET[size][2]
    assert lr['backbone.blocks.0.attn.qkv.weight'] == pytest.approx(1e-4 * decay ** depth)
    assert lr['backbone.patch_embed.proj.weight'] == pytest.approx(1e-4 * decay ** (depth + 1))
    assert lr['neck.fpn_convs.0.conv.weight'] == lr['roi_head.mask_head.conv_logits.weight'] \
        == pytest.approx(1e-4)


@pytest.mark.parametrize('size', sorted(VITDET))
def test_plain_and_specialized_differ_by_the_technique_line(size):
    plain, spec = (
        (ROOT / next(p for p in COCO if f'vit-{size}-{t}_' in p.name)).read_text().splitlines()
        for t in ('plain', 'spec'))
    assert len(plain) == len(spec)
    assert [(a, b) for a, b in zip(plain, spec) if a != b] == [
        ("    '../_base_/models/techniques/plain.py',",
         "    '../_base_/models/techniques/specialized.py',")]
    cfg = Config.fromfile(ROOT / next(p for p in COCO if f'vit-{size}-spec_' in p.name))
    assert cfg.model.backbone.specialize.qkv_blocks == 'first_third'
