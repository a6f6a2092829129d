"""PlainDETR on SpecViT: every technique trains with it (fp32 and bf16 autocast), the hybrid
queries do not see each other, predictions stay in the image, bad input is refused."""

import pytest
import torch

from tests.models.plain_detr.toy import HEAD, batch, detector
from tests.models.toy_techniques import TECHNIQUES, TOY, build
from vitspec.errors import ConfigError, DataFileError, InputShapeError


@pytest.mark.parametrize('mode', ['fp32', 'bf16'])
@pytest.mark.parametrize('technique', sorted(TECHNIQUES))
def test_every_technique_trains_with_the_detector(technique, mode):
    vit = {**TOY, **TECHNIQUES[technique]}
    # one decoder layer, no one-to-many group: the backbone is what is tested here
    model = detector(vit, dict(num_decoder_layers=1, num_encoder_layers=0, num_queries_one2many=0))
    model.features.backbone = build(technique)  # away from init, as the autocast tests use it
    size = vit['img_size'] if isinstance(vit['img_size'], tuple) else (vit['img_size'],) * 2
    images, samples = batch(size, (size[0] - 8, size[1]), boxes=False)
    with torch.autocast('cpu', dtype=torch.bfloat16, enabled=mode == 'bf16'):
        losses = model.train().loss(images, samples)
    total = sum(losses.values())
    assert torch.isfinite(total)
    total.backward()
    head_grads = [p.grad for p in model.head.parameters()]
    assert all(g is not None and torch.isfinite(g).all() for g in head_grads)
    block = next(model.backbone.blocks[0].parameters())
    assert block.grad is not None and block.grad.abs().sum() > 0


def test_windows_compose_with_a_plain_vit_and_rope():
    vit = {**TOY, **TECHNIQUES['rope'], 'img_size': 64}
    model = detector(vit, num_windows=2, feature_norm=True)
    images, samples = batch((64, 80), (48, 64))
    assert model.features.out_channels == 32 * 2 * 2
    losses = model.train().loss(images, samples)
    sum(losses.values()).backward()
    assert model.features.feature_norms[0].weight.grad is not None


def test_one_to_one_queries_do_not_see_the_one_to_many_ones():
    model = detector(TOY).eval()
    images, samples = batch((32, 40))
    with torch.no_grad():
        alone = model._run(images, samples)
        hybrid = model._run(images, samples, one2many=True)
    q = HEAD['num_queries']
    assert hybrid['logits'].shape[2] == q + HEAD['num_queries_one2many']
    torch.testing.assert_close(hybrid['logits'][:, :, :q], alone['logits'])
    torch.testing.assert_close(hybrid['boxes'][:, :, :q], alone['boxes'])


def test_losses_cover_every_layer_the_proposals_and_the_one_to_many_group():
    model = detector(TOY)
    losses = model.train().loss(*batch((32, 40)))
    layers = HEAD['num_decoder_layers']
    for name in ('loss_cls', 'loss_bbox', 'loss_giou'):
        assert {f'd{i}.{name}' for i in range(layers)} <= set(losses)
        assert {f'd{i}.{name}_one2many' for i in range(layers)} <= set(losses)
        assert f'enc.{name}' in losses
    assert len(losses) == 3 * (2 * layers + 1)


def test_predictions_are_clipped_to_each_image_and_rescaled():
    model = detector(TOY, test_cfg=dict(topk=7)).eval()
    images, samples = batch((32, 40), (24, 32))
    samples[1].set_metainfo(dict(scale_factor=(0.5, 0.5)))
    with torch.no_grad():
        first, second = model.predict(images, samples)
    assert len(first.pred_instances) == 7
    box = first.pred_instances.bboxes
    assert (box >= 0).all() and (box[:, 0::2] <= 40).all() and (box[:, 1::2] <= 32).all()
    box = second.pred_instances.bboxes  # within 32 x 24, then divided by the scale 0.5
    assert (box[:, 0::2] <= 64).all() and (box[:, 1::2] <= 48).all()
    assert second.pred_instances.labels.max() < HEAD['num_classes']


def test_a_batch_off_the_patch_grid_is_refused():
    model = detector(TOY).eval()
    images, samples = batch((36, 40))
    with pytest.raises(InputShapeError, match='pad_size_divisor'):
        model.predict(images, samples)


def test_class_columns_beyond_the_logits_are_refused():
    with pytest.raises(ConfigError, match='class_columns'):
        detector(TOY, class_columns=[0, 3])


def test_boxes_without_area_are_refused_naming_the_image():
    model = detector(TOY)
    images, samples = batch((32, 40))
    samples[1].set_metainfo(dict(img_path='demo/000001.jpg'))
    samples[1].gt_instances.bboxes[1, 2] = samples[1].gt_instances.bboxes[1, 0]
    with pytest.raises(DataFileError, match='000001.jpg: 1 ground-truth boxes without area'):
        model.train().loss(images, samples)


def test_the_detectors_init_weights_loads_the_backbones_checkpoint(tmp_path):
    source = build('plain')
    torch.save(dict(state_dict=source.state_dict()), tmp_path / 'vit.pth')
    init_cfg = dict(type='Pretrained', checkpoint=str(tmp_path / 'vit.pth'))
    model = detector({**TOY, 'init_cfg': init_cfg})
    model.init_weights()  # what the runner calls
    torch.testing.assert_close(model.backbone.state_dict(), source.state_dict())


def test_images_with_fewer_proposals_than_queries_are_refused():
    model = detector(TOY, head=dict(HEAD, num_queries=10_000)).eval()
    images, samples = batch((32, 40))
    with pytest.raises(InputShapeError, match='10000 queries from'):
        model.predict(images, samples)
