"""LinearBNHead's banded training loss against mmseg's own ``BaseDecodeHead.loss_by_feat``."""

import pytest
import torch
from mmengine.structures import PixelData
from mmseg.models.decode_heads.decode_head import BaseDecodeHead
from mmseg.models.losses import CrossEntropyLoss
from mmseg.structures import SegDataSample

from vitspec.models.heads.banded_seg_loss import is_plain_cross_entropy
from vitspec.models.heads.linear_bn_head import LinearBNHead

CE = dict(type='CrossEntropyLoss', use_sigmoid=False, loss_weight=0.7)


def head(avg_non_ignore=False, **kwargs):
    torch.manual_seed(0)
    kwargs.setdefault('loss_decode', dict(CE, avg_non_ignore=avg_non_ignore))
    return LinearBNHead(
        in_channels=[6, 6], num_classes=5, norm_cfg=dict(type='BN'), align_corners=False, **kwargs
    )


def batch(size=(37, 23)):
    gen = torch.Generator().manual_seed(1)
    inputs = [torch.randn(2, 6, 4, 3, generator=gen) for _ in range(2)]
    samples = []
    for _ in range(2):
        labels = torch.randint(0, 5, (1, *size), generator=gen)
        labels[torch.rand(1, *size, generator=gen) < 0.2] = 255
        samples.append(SegDataSample(gt_sem_seg=PixelData(data=labels)))
    return inputs, samples


def losses_and_grads(model, loss_by_feat, autocast=False):
    inputs, samples = batch()
    model.zero_grad()
    with torch.autocast('cpu', dtype=torch.bfloat16, enabled=autocast):
        losses = loss_by_feat(model, model(inputs), samples)
    losses['loss_ce'].backward()
    return losses, [p.grad.clone() for p in model.parameters()]


@pytest.mark.parametrize('mode', ['fp32', 'bf16'])
@pytest.mark.parametrize('avg_non_ignore', [False, True])
def test_loss_accuracy_and_gradients_equal_mmseg_s(mode, avg_non_ignore):
    model = head(avg_non_ignore=avg_non_ignore).train()
    autocast = mode == 'bf16'
    ours, our_grads = losses_and_grads(model, LinearBNHead.loss_by_feat, autocast)
    theirs, their_grads = losses_and_grads(model, BaseDecodeHead.loss_by_feat, autocast)
    assert ours.keys() == theirs.keys() == {'loss_ce', 'acc_seg'}
    # mmseg resizes bf16 logits in bf16 under autocast; the banded loss resizes in float32
    tol = dict(rtol=1e-2, atol=1e-3) if autocast else dict(rtol=1e-5, atol=1e-7)
    torch.testing.assert_close(ours['loss_ce'], theirs['loss_ce'].float(), **tol)
    assert ours['acc_seg'].shape == theirs['acc_seg'].shape == (1,)
    torch.testing.assert_close(ours['acc_seg'], theirs['acc_seg'], **tol)
    for a, b in zip(our_grads, their_grads):
        torch.testing.assert_close(a, b, **tol)


@pytest.mark.parametrize(
    'kwargs',
    [
        dict(loss_decode=[CE, dict(CE, loss_name='loss_dice', type='DiceLoss')]),
        dict(sampler=dict(type='OHEMPixelSampler', thresh=0.7, min_kept=10)),
    ],
)
def test_other_losses_go_through_mmseg_s_loss_by_feat(kwargs, monkeypatch):
    calls = []
    original = BaseDecodeHead.loss_by_feat
    monkeypatch.setattr(BaseDecodeHead, 'loss_by_feat', lambda *a: calls.append(1) or original(*a))
    model = head(**kwargs)
    inputs, samples = batch()
    model.loss_by_feat(model(inputs), samples)
    assert calls == [1]


def test_class_weights_sigmoid_and_sum_reductions_are_not_the_plain_cross_entropy():
    assert is_plain_cross_entropy(CrossEntropyLoss())
    for kwargs in [
        dict(class_weight=[1.0, 2.0]),
        dict(use_sigmoid=True),
        dict(use_mask=True),
        dict(reduction='sum'),
    ]:
        assert not is_plain_cross_entropy(CrossEntropyLoss(**kwargs)), kwargs
