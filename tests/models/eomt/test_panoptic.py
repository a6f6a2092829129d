"""EoMTPanoptic on toy sizes: every SpecViT technique that composes with EoMT trains and predicts
panoptic and instance results in fp32 and under bf16 autocast; the refused ones are refused as
for the semantic EoMT; the post-processing is mmdet's MaskFormerFusionHead with EoMT's
thresholds (checked against tue-mps/eomt's functions once, outside the repo)."""

import pytest
import torch
from mmdet.registry import MODELS
from mmdet.structures import DetDataSample
from mmdet.structures.mask import BitmapMasks
from mmengine.registry import init_default_scope
from mmengine.structures import InstanceData, PixelData

from tests.models.toy_techniques import TECHNIQUES, TOY
from vitspec.errors import ConfigError, InputShapeError
from vitspec.models.eomt.panoptic import EOMT_TEST_CFG

REFUSED = ('class_attention', 'talking_heads', 'rel_pos_table', 'windowed_attention')
COMPOSING = [t for t in TECHNIQUES if t not in REFUSED]
H, W = 32, 40  # non-square, a multiple of the patch (8)
THINGS, STUFF = 2, 2


def detector(technique='plain', **kw):
    init_default_scope('mmdet')
    torch.manual_seed(0)
    backbone = dict(type='SpecViT', **{**TOY, **TECHNIQUES[technique]})
    model = MODELS.build(
        dict(
            type='EoMTPanoptic',
            backbone=backbone,
            num_things_classes=THINGS,
            num_stuff_classes=STUFF,
            num_queries=6,
            num_blocks=2,
            **{'loss': dict(num_points=64), **kw},
        )
    )
    model.init_weights()
    with torch.no_grad():  # away from init, as toy_techniques.build
        for p in model.parameters():
            if not p.abs().any():
                p.normal_(std=0.02)
    return model


def samples(n=2):
    out = []
    for i in range(n):
        meta = dict(
            img_shape=(H - 8, W), ori_shape=(H - 8, W), batch_input_shape=(H, W), pad_shape=(H, W)
        )
        s = DetDataSample(metainfo=meta)
        masks = torch.zeros(2, H, W, dtype=torch.uint8)
        masks[0, 2:10, 3 + i : 15] = 1
        masks[1, 12:20, 20:30] = 1
        s.gt_instances = InstanceData(
            labels=torch.tensor([0, 1]), masks=BitmapMasks(masks.numpy(), H, W)
        )
        seg = torch.full((1, H, W), 255, dtype=torch.uint8)
        seg[:, :12] = THINGS  # first stuff class above, second below; thing pixels inside
        seg[:, 20:] = THINGS + 1
        s.gt_sem_seg = PixelData(sem_seg=seg)
        out.append(s)
    return out


@pytest.mark.parametrize('mode', ['fp32', 'bf16'])
@pytest.mark.parametrize('technique', COMPOSING)
def test_every_composing_technique_trains_and_predicts(technique, mode):
    model = detector(technique, query_specialize=True).train()
    model.network.attn_mask_probs.fill_(0.5)
    img = torch.randn(2, 3, H, W)
    with torch.autocast('cpu', dtype=torch.bfloat16, enabled=mode == 'bf16'):
        losses = model.loss(img, samples())
    assert set(losses) >= {'loss_cls', 'loss_mask', 'loss_dice', 'd0.loss_cls', 'd1.loss_dice'}
    total = sum(losses.values())
    assert torch.isfinite(total)
    total.backward()
    grad = model.network.backbone.blocks[0].attn.qkv.weight.grad
    assert grad is not None and grad.abs().sum() > 0
    model.eval()
    with torch.no_grad(), torch.autocast('cpu', dtype=torch.bfloat16, enabled=mode == 'bf16'):
        (out,) = model.predict(img[:1], samples(1))
    assert out.pred_panoptic_seg.sem_seg.shape == (1, H - 8, W)  # img_shape, padding removed
    inst = out.pred_instances
    assert inst.masks.shape[1:] == (H - 8, W) and inst.bboxes.shape[1] == 4
    assert (inst.labels < THINGS).all()  # instances are things only


@pytest.mark.parametrize('technique', REFUSED)
def test_refused_techniques_are_refused_as_for_semantic_eomt(technique):
    with pytest.raises(ConfigError):
        detector(technique)


def test_post_processing_keeps_eomts_thresholds_and_stuff_merges():
    model = detector().eval()
    assert {k: model.test_cfg[k] for k in EOMT_TEST_CFG if k != 'max_per_image'} == {
        k: v for k, v in EOMT_TEST_CFG.items() if k != 'max_per_image'
    }
    assert model.test_cfg.max_per_image == 6 * (THINGS + STUFF)  # all pairs: under 100
    void = THINGS + STUFF
    cls = torch.full((5, void + 1), -10.0)
    cls[0, THINGS] = cls[1, THINGS] = 10.0  # two queries of stuff class 0
    cls[2, 0], cls[2, -1] = 1.0, 0.6  # thing 0 at p = 0.6: under object_mask_thr 0.8
    cls[3, 1] = cls[4, 1] = 10.0  # thing 1 twice
    masks = torch.full((5, 8, 10), -10.0)
    masks[0, :4, :5] = 10
    masks[1, :4, 5:] = 10
    masks[2, 4:, :2] = 10
    masks[3, 4:, 2:8] = 10
    masks[4, 4:, 6:] = 5  # half of it under query 3's stronger mask: 8 / 16 < iou_thr 0.8
    pan = model.fusion_head.panoptic_postprocess(cls, masks).sem_seg[0]
    assert (pan[:4] == THINGS).all()  # one stuff segment from two queries
    thing = pan[4:, 2:8]
    assert len(thing.unique()) == 1 and thing[0, 0] % 1000 == 1 and thing[0, 0] >= 1000
    assert (pan[4:, :2] == void).all() and (pan[4:, 8:] == void).all()


def test_inputs_off_the_patch_grid_and_bad_settings_are_named():
    model = detector().eval()
    with pytest.raises(InputShapeError, match='pad_size_divisor=8'):
        model.predict(torch.randn(1, 3, 30, 40), samples(1))
    with pytest.raises(ConfigError, match='ignore_index'):
        detector(loss=dict(ignore_index=0))
    with pytest.raises(ConfigError, match='num_things_classes'):
        MODELS.build(
            dict(type='EoMTPanoptic', backbone=dict(type='SpecViT', **TOY), num_things_classes=-1)
        )
    with pytest.raises(ConfigError, match='gt_sem_seg'):
        no_seg = samples(1)
        del no_seg[0].gt_sem_seg
        detector().train().loss(torch.randn(1, 3, H, W), no_seg)
