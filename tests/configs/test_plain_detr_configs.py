"""The Plain-DETR / DINOv3 detector configs build their model, optimizer and pipelines; the 7B
config is the released head's architecture (its hub's numbers), the S / B / L ones freeze the
whole ViT and take 4 evenly spaced blocks, as DINOv3 does."""

import pytest
import torch
from mmdet.registry import MODELS
from mmengine.config import Config
from mmengine.dataset import Compose
from mmengine.optim import build_optim_wrapper
from mmengine.registry import DefaultScope

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT

CONFIGS = sorted(p.relative_to(ROOT) for p in (ROOT / 'configs/coco').glob('plain-detr_*.py'))
SEVEN_B = 'configs/coco/plain-detr_vit-7b16-dinov3_dinov3-detr_16xb1-12e_coco-2048x2048.py'


def build(cfg):
    with DefaultScope.overwrite_default_scope('mmdet'), torch.device('meta'):
        return MODELS.build(cfg.model)


@pytest.mark.parametrize('path', CONFIGS, ids=str)
def test_config_builds_model_optimizer_and_pipelines(path):
    cfg = Config.fromfile(ROOT / path)
    model = build(cfg)
    vit = cfg.model.backbone
    assert vit.frozen_stages == vit.num_layers
    assert list(vit.out_indices) == [m * vit.num_layers // 4 - 1 for m in range(1, 5)]
    assert not any(p.requires_grad for p in model.backbone.parameters())
    with DefaultScope.overwrite_default_scope('mmdet'):
        optimizer = build_optim_wrapper(model, cfg.optim_wrapper).optimizer
        Compose(cfg.train_dataloader.dataset.pipeline)
        Compose(cfg.test_dataloader.dataset.pipeline)
    assert optimizer.defaults['lr'] == 2e-4
    assert cfg.model.data_preprocessor.pad_size_divisor % vit.patch_size == 0
    assert cfg.val_evaluator.metric == 'bbox' and cfg.find_unused_parameters


def test_the_7b_config_is_the_released_heads_architecture():
    cfg = Config.fromfile(ROOT / SEVEN_B)
    model = build(cfg)
    head = model.head
    assert head.query_embed.weight.shape == (3000, 768)
    assert head.input_proj[0].in_channels == 4 * 4096 * 2  # 4 blocks, windows + whole image
    assert len(head.cls_branches) == 7 and head.cls_branches[0].out_features == 91
    assert len(head.encoder.layers) == 6 and len(head.decoder.layers) == 6
    columns = cfg.model.class_columns
    assert len(columns) == 80 == len(set(columns)) and max(columns) == 90
