"""Mask2Former's matching and losses as EoMT trains with them (mmdet's, on our module)."""

import pytest
import torch
import torch.nn.functional as F
from mmengine.structures import PixelData
from mmseg.structures import SegDataSample

from vitspec.models.eomt.loss import MaskClassificationLoss

K = 4  # classes


def sample(seg: torch.Tensor) -> SegDataSample:
    s = SegDataSample(metainfo=dict(img_shape=seg.shape, pad_shape=seg.shape))
    s.gt_sem_seg = PixelData(data=seg[None])
    return s


def toy_case():
    """Two classes present (1: left half, 3: right half), a 255 border; query 0 predicts the
    right half as class 3, query 2 the left half as class 1, query 1 predicts nothing."""
    seg = torch.full((16, 16), 1, dtype=torch.long)
    seg[:, 8:] = 3
    seg[0] = 255
    left = torch.zeros(16, 16)
    left[:, :8] = 1
    masks = torch.stack([1 - left, torch.zeros(16, 16), left]) * 20 - 10  # logits +-10
    classes = torch.full((3, K + 1), -5.0)
    classes[0, 3] = classes[2, 1] = classes[1, K] = 5.0
    return [sample(seg)], masks[None], classes[None]


def test_semantic_map_becomes_one_mask_per_present_class_without_ignore():
    loss = MaskClassificationLoss(num_classes=K, num_queries=3)
    samples, _, _ = toy_case()
    (inst,), _ = loss._seg_data_to_instance_data(samples)
    assert sorted(inst.labels.tolist()) == [1, 3]
    for label, mask in zip(inst.labels, inst.masks):
        expected = samples[0].gt_sem_seg.data[0] == label
        assert torch.equal(mask.bool(), expected)


@pytest.mark.parametrize('permutation', [(0, 1, 2), (2, 0, 1), (1, 2, 0)])
def test_hungarian_matching_finds_the_known_assignment(permutation):
    loss = MaskClassificationLoss(num_classes=K, num_queries=3, num_points=256)
    samples, masks, classes = toy_case()
    order = list(permutation)
    (inst,), metas = loss._seg_data_to_instance_data(samples)
    labels, _, _, mask_weights, _ = loss.get_targets(
        [classes[0, order]], [masks[0, order]], [inst], metas
    )
    expected = torch.tensor([3, K, 1])[order]  # no-object is class K
    assert labels[0].tolist() == expected.tolist()
    assert mask_weights[0].tolist() == (expected != K).float().tolist()


def test_class_loss_is_weighted_cross_entropy_with_no_object_coefficient():
    loss = MaskClassificationLoss(
        num_classes=K, num_queries=3, class_coefficient=2.0, no_object_coefficient=0.1
    )
    samples, masks, classes = toy_case()
    classes = classes + torch.randn_like(classes)  # not all equal: the weights matter
    out = loss([masks], [classes], samples)
    weight = torch.tensor([1.0] * K + [0.1])
    expected = 2.0 * F.cross_entropy(classes[0], torch.tensor([3, K, 1]), weight=weight)
    assert out['loss_cls'].item() == pytest.approx(expected.item(), rel=1e-5)


def test_right_masks_lose_less_than_wrong_ones():
    torch.manual_seed(0)
    loss = MaskClassificationLoss(num_classes=K, num_queries=3, num_points=512)
    samples, masks, classes = toy_case()
    right = loss([masks], [classes], samples)
    wrong = loss([masks.transpose(-1, -2)], [classes], samples)  # top / bottom halves
    for key in ('loss_mask', 'loss_dice'):
        assert right[key] < 0.5 * wrong[key], key


def test_every_layer_is_supervised_alike():
    loss = MaskClassificationLoss(num_classes=K, num_queries=3, num_points=64)
    samples, masks, classes = toy_case()
    noisy = torch.randn_like(classes)
    out = loss([masks, masks, masks], [noisy, classes, noisy], samples)
    assert set(out) == {
        f'{prefix}loss_{kind}' for prefix in ('d0.', 'd1.', '') for kind in ('cls', 'mask', 'dice')
    }
    assert out['d0.loss_cls'] == pytest.approx(out['loss_cls'].item())
    assert out['d1.loss_cls'] < out['loss_cls']


def test_no_ground_truth_trains_only_no_object():
    loss = MaskClassificationLoss(num_classes=K, num_queries=3, num_points=64)
    _, masks, classes = toy_case()
    out = loss([masks], [classes], [sample(torch.full((16, 16), 255))])
    assert out['loss_mask'].item() == 0 and out['loss_dice'].item() == 0
    assert out['loss_cls'] > 0


@pytest.mark.parametrize('bad', [dict(num_points=0), dict(importance_sample_ratio=1.5)])
def test_bad_arguments_name_the_key(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        MaskClassificationLoss(num_classes=K, num_queries=3, **bad)


def test_bf16_autocast_equals_fp32_on_the_same_values():
    loss = MaskClassificationLoss(num_classes=K, num_queries=3, num_points=128)
    samples, masks, classes = toy_case()
    classes = (classes + torch.randn_like(classes)).bfloat16()
    masks = (masks + torch.randn_like(masks)).bfloat16()
    masks.requires_grad_(True)
    torch.manual_seed(1)
    ref = loss([masks.float()], [classes.float()], samples)
    torch.manual_seed(1)
    with torch.autocast('cpu', dtype=torch.bfloat16):
        out = loss([masks], [classes], samples)
    for key in ref:
        assert out[key].dtype == torch.float32
        assert out[key].item() == pytest.approx(ref[key].item(), rel=1e-5), key
    sum(out.values()).backward()
    assert masks.grad is not None and torch.isfinite(masks.grad.float()).all()


def test_under_mmseg_scope_the_parts_are_mmdets():
    """mmseg has its own CrossEntropyLoss and DiceLoss (other arguments, other reductions)."""
    from mmdet.models.losses import CrossEntropyLoss, DiceLoss
    from mmengine.registry import DefaultScope

    with DefaultScope.overwrite_default_scope('mmseg'):
        loss = MaskClassificationLoss(num_classes=K, num_queries=3)
    assert type(loss.loss_cls) is CrossEntropyLoss and type(loss.loss_mask) is CrossEntropyLoss
    assert type(loss.loss_dice) is DiceLoss
    assert type(loss.assigner).__module__.startswith('mmdet.')
