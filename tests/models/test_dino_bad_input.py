"""mmdet's DINO on images without boxes: an image without boxes beside one with boxes, and a batch
in which no image has one, give finite losses (the classifier learns "no object" from them) and
no denoising or box loss where there is no box. Degenerate boxes never reach the model:
CheckedCocoDataset drops and logs each box of non-positive size with its image
(tests/datasets/test_checked_coco.py), and mmdet's RandomCrop drops the boxes a crop empties."""

import torch

from tests.models.test_dino_techniques import sample, tiny_dino, train_step

BOX = [[2.0, 3.0, 20.0, 30.0]]


def test_an_image_without_boxes_beside_one_with_boxes():
    detector = tiny_dino('plain')
    losses, loss = train_step(detector, [sample(BOX), sample([])])
    assert torch.isfinite(loss), losses
    assert losses['loss_cls'] > 0 and losses['loss_bbox'] > 0 and losses['dn_loss_bbox'] > 0
    assert all(torch.isfinite(p.grad).all() for p in detector.parameters() if p.grad is not None)


def test_a_batch_without_any_box_trains_the_classifier_only():
    detector = tiny_dino('plain')
    losses, loss = train_step(detector, [sample([]), sample([])])
    assert torch.isfinite(loss), losses
    assert losses['loss_cls'] > 0 and losses['enc_loss_cls'] > 0
    boxes = [v for k, v in losses.items() if 'bbox' in k or 'iou' in k or k.startswith('dn_')]
    assert boxes and all(v == 0 for v in boxes), losses
    classifier = detector.bbox_head.cls_branches[-1].weight.grad
    assert classifier is not None and classifier.abs().sum() > 0
