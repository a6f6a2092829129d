"""SigLoss by hand; the gradient loss works per sample on (H, W) maps, and its dinov2_slicing
mode computes what DINOv2's released GradientLoss computes."""

import math

import pytest
import torch
from mmengine.logging import MessageHub

from vitspec.models.losses import GradientLoss, SigLoss


def test_sig_loss_by_hand_on_valid_pixels():
    gt = torch.tensor([[[[1.0, 2.0], [0.0, 4.0]]]])
    pred = torch.tensor([[[[2.0, 2.0], [7.0, 2.0]]]])
    loss = SigLoss(eps=0.0)(pred, gt)  # the 0 pixel is ignored
    g = [math.log(2), 0.0, math.log(0.5)]
    mean = sum(g) / 3
    var = sum((v - mean) ** 2 for v in g) / 2  # unbiased, as DINOv2's torch.var
    assert loss.item() == pytest.approx(math.sqrt(var + 0.15 * mean**2), rel=1e-5)


def test_sig_loss_warm_up_follows_the_runner_iteration():
    gt = torch.rand(2, 1, 8, 8) + 1
    pred = gt * torch.linspace(0.5, 2, 64).reshape(1, 1, 8, 8)
    loss = SigLoss(warm_up_iters=100)
    hub = MessageHub.get_instance('test_sig_loss_warm_up')
    hub.update_info('iter', 5)
    warm = loss(pred, gt)
    g = torch.log(pred + 1e-3) - torch.log(gt + 1e-3)
    assert warm.item() == pytest.approx(math.sqrt(0.15) * g.mean().abs().item(), rel=1e-5)
    hub.update_info('iter', 100)
    assert loss(pred, gt).item() > warm.item()


def test_sig_loss_without_valid_pixels_is_zero_with_a_gradient():
    pred = torch.rand(1, 1, 4, 4, requires_grad=True)
    loss = SigLoss()(pred, torch.zeros(1, 1, 4, 4))
    loss.backward()
    assert loss.item() == 0 and torch.isfinite(pred.grad).all()


def test_gradient_loss_by_hand():
    # log-difference r = log(pred/gt): a ramp of log 2 per column on one valid 1x3 row
    gt = torch.ones(1, 1, 1, 3)
    pred = torch.tensor([[[[1.0, 2.0, 4.0]]]])
    loss = GradientLoss(num_scales=1, eps=0.0)(pred, gt)
    assert loss.item() == pytest.approx(2 * math.log(2) / 3, rel=1e-5)


@pytest.mark.parametrize('batch', [1, 2, 3])
def test_gradient_loss_of_a_batch_is_the_mean_of_per_sample_losses(batch):
    torch.manual_seed(batch)
    gt = torch.rand(batch, 1, 24, 32) * 9 + 0.5
    gt[:, :, :4] = 0  # holes
    pred = torch.rand(batch, 1, 24, 32) * 9 + 0.5
    loss = GradientLoss()
    whole = loss(pred, gt)
    singles = torch.stack([loss(pred[i : i + 1], gt[i : i + 1]) for i in range(batch)])
    assert whole.item() > 0.1  # DINOv2's batch-axis slicing gives 0 for batch 1 and 2
    assert whole.item() == pytest.approx(singles.mean().item(), rel=1e-5)


def test_gradient_loss_ignores_a_constant_scale_and_the_batch_order():
    gt = torch.rand(2, 1, 16, 16) + 1
    loss = GradientLoss(eps=0.0)
    assert loss(gt * 3, gt).item() == pytest.approx(0, abs=1e-5)  # scale-invariant
    pred = torch.rand(2, 1, 16, 16) + 1
    assert loss(pred, gt).item() == pytest.approx(loss(pred.flip(0), gt.flip(0)).item())


def dinov2_formula(pred, gt, eps=1e-3):
    """DINOv2's GradientLoss written out for (B, 1, H, W) with B = 5: at stride 1 the pairs of
    samples (0, 2), (1, 3), (2, 4); at stride 2 samples 0, 2, 4 hence the pair (0, 4); strides 4
    and 6 keep fewer than 3 samples. Each scale is divided by its count of valid pixels."""
    m = (gt > 0).float()
    d = (torch.log(pred + eps) - torch.log(gt + eps)) * m

    def term(i, j):
        return ((d[i] - d[j]).abs() * m[i] * m[j]).sum()

    stride1 = (term(0, 2) + term(1, 3) + term(2, 4)) / m.sum()
    stride2 = term(0, 4) / m[::2].sum()
    return stride1 + stride2


@pytest.mark.parametrize('batch', [1, 2])
def test_dinov2_slicing_is_exactly_zero_at_one_or_two_images(batch):
    torch.manual_seed(0)
    gt = torch.rand(batch, 1, 12, 16) * 9 + 0.5
    pred = torch.rand(batch, 1, 12, 16, requires_grad=True)
    loss = GradientLoss(loss_weight=0.5, dinov2_slicing=True)(pred, gt)
    assert loss.item() == 0.0
    loss.backward()  # still part of the graph
    assert pred.grad.abs().sum() == 0


def test_dinov2_slicing_follows_their_formula_at_five_images():
    torch.manual_seed(1)
    gt = torch.rand(5, 1, 12, 16) * 9 + 0.5
    gt[:, :, :3] = 0  # holes
    pred = torch.rand(5, 1, 12, 16) * 9 + 0.5
    loss = GradientLoss(loss_weight=0.5, dinov2_slicing=True)(pred, gt)
    assert loss.item() > 0
    assert loss.item() == pytest.approx(0.5 * dinov2_formula(pred, gt).item(), rel=1e-5)
    # the per-sample loss never compares different images
    assert GradientLoss(loss_weight=0.5)(pred, gt).item() != pytest.approx(loss.item())


def test_dinov2_slicing_needs_one_channel_maps():
    with pytest.raises(ValueError, match=r'dinov2_slicing.*\(B, 1, H, W\).*\(3, 8, 8\)'):
        GradientLoss(dinov2_slicing=True)(torch.rand(3, 8, 8), torch.rand(3, 8, 8))
