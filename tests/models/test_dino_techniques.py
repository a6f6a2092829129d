"""Every SpecViT technique under mmdet's DINO (the demo's pyramid and ChannelMapper): one training
step on one tiny image, in float32 and under bfloat16 autocast, gives finite losses and a finite
gradient to every trainable backbone parameter."""

import copy

import pytest
import torch
from mmdet.registry import MODELS
from mmdet.structures import DetDataSample
from mmengine.config import Config
from mmengine.registry import DefaultScope
from mmengine.structures import InstanceData

import vitspec  # noqa: F401  (registers)
from tests.models.toy_techniques import TECHNIQUES, TOY
from tests.utils import ROOT

CONFIG = ROOT / 'configs/demo/dino-4scale_specvit-tiny-p8_simplefpn_1xb4-300it_demo-coco-128x128.py'
IMAGE = (32, 40)
MODEL = Config.fromfile(CONFIG).model


def tiny_dino(technique):
    model = copy.deepcopy(MODEL)
    model.backbone = dict(type='SpecViT', **{**TOY, 'out_indices': (2,), **TECHNIQUES[technique]})
    model.neck.necks[0].update(in_channels=TOY['embed_dims'], out_channels=32)
    model.neck.necks[1].update(in_channels=[32] * 4)
    for part in (model.encoder, model.decoder):
        part.num_layers = 1
        part.layer_cfg.ffn_cfg.feedforward_channels = 64
    model.num_queries = 10
    model.dn_cfg.group_cfg.num_dn_queries = 4
    model.test_cfg.max_per_img = 10
    torch.manual_seed(0)
    with DefaultScope.overwrite_default_scope('mmdet'):
        detector = MODELS.build(model)
    detector.init_weights()
    return detector.train()


def sample(boxes):
    meta = dict(img_shape=IMAGE, pad_shape=IMAGE, batch_input_shape=IMAGE, scale_factor=(1.0, 1.0))
    data = DetDataSample(metainfo=dict(meta, ori_shape=IMAGE))
    data.gt_instances = InstanceData(
        bboxes=torch.tensor(boxes, dtype=torch.float32).reshape(-1, 4),
        labels=torch.zeros(len(boxes), dtype=torch.long),
    )
    return data


def train_step(detector, samples, dtype=None):
    image = torch.randn(len(samples), 3, *IMAGE)
    with torch.autocast('cpu', dtype=dtype or torch.float32, enabled=dtype is not None):
        losses = detector.loss(image, samples)
    loss = sum(v for k, v in losses.items() if 'loss' in k)
    loss.backward()
    return losses, loss


@pytest.mark.parametrize('technique', sorted(TECHNIQUES))
def test_every_technique_trains_a_step_under_dino_in_fp32_and_bf16(technique):
    detector = tiny_dino(technique)
    for dtype in (None, torch.bfloat16):  # float32, then under bfloat16 autocast
        detector.zero_grad(set_to_none=True)
        losses, loss = train_step(detector, [sample([[2.0, 3.0, 20.0, 30.0]])], dtype)
        assert torch.isfinite(loss), (dtype, {k: float(v) for k, v in losses.items()})
        assert losses['dn_loss_bbox'] > 0  # the denoising queries ran
        for name, p in detector.backbone.named_parameters():
            if p.requires_grad:
                assert p.grad is not None and torch.isfinite(p.grad).all(), (dtype, name)
