"""DINOv3's released COCO detector head, converted: synthetic weights in its key layout give,
through PlainDETR (toy sizes, windows, a padded non-square batch), the logits, boxes and
post-processed detections of a reference written from DINOv3's detection code
(dinov3_detr_reference.py)."""

import pytest
import torch
from mmdet.registry import MODELS
from mmdet.structures import DetDataSample
from mmengine.registry import init_default_scope

from tests.checkpoints import dinov3_detr_reference as ref
from vitspec.checkpoints.layouts.dinov3_detr import detector_state_dict, from_dinov3_detector
from vitspec.errors import CheckpointError

DIM, HEADS, FFN, ENC_FFN, CLASSES, Q1, QM, ENC, DEC, RPB = 64, 4, 48, 40, 11, 6, 5, 2, 2, 16
LAYERS, EMBED, PATCH = (1, 3), 32, 16
SIZES = [(96, 128), (64, 96)]  # non-square, the second padded


def build(windows, feature_norm=False):
    init_default_scope('mmdet')
    torch.manual_seed(0)
    model = MODELS.build(
        dict(
            type='PlainDETR',
            backbone=dict(
                type='SpecViT',
                img_size=64,
                patch_size=PATCH,
                embed_dims=EMBED,
                num_layers=4,
                num_heads=2,
                out_indices=LAYERS,
            ),
            num_windows=windows,
            feature_norm=feature_norm,
            head=dict(
                num_classes=CLASSES,
                dims=DIM,
                num_heads=HEADS,
                ffn_dims=FFN,
                num_decoder_layers=DEC,
                num_encoder_layers=ENC,
                encoder_ffn_dims=ENC_FFN,
                num_queries=Q1,
                num_queries_one2many=QM,
                rpb_hidden=RPB,
            ),
            test_cfg=dict(topk=20),
        )
    )
    model.backbone.init_weights()
    return model.eval()


def released(windows, seed=0):
    in_ch = EMBED * len(LAYERS) * (2 if windows else 1)
    shapes = ref.layout(in_ch, DIM, HEADS, FFN, ENC_FFN, CLASSES, Q1 + QM, ENC, DEC, RPB)
    return ref.synthetic(shapes, seed)


def batch(seed=1):
    g = torch.Generator().manual_seed(seed)
    images = torch.zeros(len(SIZES), 3, *SIZES[0])
    for i, (h, w) in enumerate(SIZES):
        images[i, :, :h, :w] = torch.randn(3, h, w, generator=g)
    samples = [DetDataSample(metainfo=dict(img_shape=s, batch_input_shape=SIZES[0])) for s in SIZES]
    return images, samples


def load(model, sd):
    head, frozen = from_dinov3_detector(sd)
    missing, unexpected = model.load_state_dict(head, strict=False)
    assert unexpected == [] and all(k.startswith('features.backbone.') for k in missing)
    return frozen


@pytest.mark.parametrize('windows', [0, 2])
def test_converted_head_gives_the_references_detections(windows):
    model, sd = build(windows), released(windows)
    load(model, sd)
    images, samples = batch()
    cfg = dict(
        windows=windows,
        patch=PATCH,
        enc=ENC,
        dec=DEC,
        heads=HEADS,
        strides=(8, 16, 32, 64),
        min_size=50,
        queries=Q1,
        topk=20,
    )
    with torch.no_grad():
        expected, post = ref.detect(sd, model.backbone, images, SIZES, cfg)
        out = model._run(images, samples)
        results = model.predict(images, samples)
    torch.testing.assert_close(out['logits'][:, :, :Q1], expected['logits'], atol=2e-5, rtol=1e-4)
    torch.testing.assert_close(out['boxes'][:, :, :Q1], expected['boxes'], atol=2e-3, rtol=1e-4)
    torch.testing.assert_close(out['enc']['logits'], expected['enc_logits'], atol=2e-5, rtol=1e-4)
    for sample, want in zip(results, post):
        pred = sample.pred_instances
        torch.testing.assert_close(pred.scores, want['scores'], atol=1e-5, rtol=1e-4)
        assert torch.equal(pred.labels, want['labels'])
        torch.testing.assert_close(pred.bboxes, want['boxes'], atol=2e-3, rtol=1e-4)
    assert expected['boxes'].abs().max() > 10  # boxes in pixels, not degenerate


def test_the_released_files_model_entry_and_frozen_vit_keys():
    sd = released(0)
    sd['backbone.0.backbone.blocks.0.attn.qkv.weight'] = torch.zeros(3, 3)
    frozen = load(
        build(0), detector_state_dict({'model': {'module.' + k: v for k, v in sd.items()}})
    )
    assert frozen == ['backbone.0.backbone.blocks.0.attn.qkv.weight']


def test_per_layer_norms_of_a_windowed_backbone_convert():
    sd = released(2)
    for i in range(len(LAYERS)):
        sd[f'backbone.0._backbone.layer_norms.{i}.ln.weight'] = torch.full((EMBED,), 2.0)
        sd[f'backbone.0._backbone.layer_norms.{i}.ln.bias'] = torch.zeros(EMBED)
    model = build(2, feature_norm=True)
    load(model, sd)
    assert torch.equal(model.features.feature_norms[1].weight, torch.full((EMBED,), 2.0))


def test_unknown_keys_and_differing_shared_branches_are_refused():
    sd = released(0)
    with pytest.raises(CheckpointError, match='transformer.decoder.foo'):
        from_dinov3_detector({**sd, 'transformer.decoder.foo': torch.zeros(1)})
    sd['transformer.decoder.class_embed.0.bias'] = sd['class_embed.0.bias'] + 1
    with pytest.raises(CheckpointError, match='one module'):
        from_dinov3_detector(sd)
    with pytest.raises(CheckpointError, match='dict of tensors'):
        detector_state_dict([1, 2])
