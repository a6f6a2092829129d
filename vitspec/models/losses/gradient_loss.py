"""Multi-scale gradient-matching loss (MegaDepth) on log depth, computed per sample.

DINOv2's GradientLoss (facebookresearch/dinov2 dinov2/eval/depth/models/losses/gradientloss.py)
indexes (B, 1, H, W) tensors as if they were (H, W) maps: its "vertical" differences run over the
batch axis (samples i and i+2), its "horizontal" ones over the single channel (always empty), and
its coarser scales subsample the batch. The loss is therefore exactly 0 for 1 or 2 images per GPU,
which is what DINOv2's depth numbers were trained with. ``dinov2_slicing=True`` reproduces that
computation; the default differentiates along H and W of each sample.
"""

import torch
from mmseg.registry import MODELS
from torch import nn

from vitspec.errors import InputShapeError

from .sig_loss import valid_depth


def gradient_matching(log_diff: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per-sample sum of |d/dx| and |d/dy| of the log-depth difference over pairs of valid
    neighbours, divided by the number of valid pixels. Inputs (B, H, W); returns (B,)."""
    mask = mask.to(log_diff.dtype)
    dx = (log_diff[:, :, 1:] - log_diff[:, :, :-1]).abs() * mask[:, :, 1:] * mask[:, :, :-1]
    dy = (log_diff[:, 1:] - log_diff[:, :-1]).abs() * mask[:, 1:] * mask[:, :-1]
    count = mask.sum(dim=(1, 2)).clamp_min(1)
    return (dx.sum(dim=(1, 2)) + dy.sum(dim=(1, 2))) / count


def dinov2_sliced_gradient(
    pred: torch.Tensor, target: torch.Tensor, eps: float, max_depth: float = None
) -> torch.Tensor:
    """DINOv2's computation on (B, 1, H, W): strides 1, 2, 4, 6 and differences at distance 2,
    all on the first two axes (batch, channel); each scale divided by its number of valid
    pixels (an all-invalid scale gives 0 here, NaN there). Nonzero only from 3 images on."""
    total = pred.new_zeros(())
    for step in (1, 2, 4, 6):
        p, t = pred[::step, ::step], target[::step, ::step]
        mask = valid_depth(t, max_depth).to(p.dtype)
        diff = (torch.log(p + eps) - torch.log(t + eps)) * mask
        first = (diff[:-2] - diff[2:]).abs() * mask[:-2] * mask[2:]
        second = (diff[:, :-2] - diff[:, 2:]).abs() * mask[:, :-2] * mask[:, 2:]
        total = total + (first.sum() + second.sum()) / mask.sum().clamp_min(1)
    return total


@MODELS.register_module()
class GradientLoss(nn.Module):
    """sum over scales (stride 1, 2, 4, ...) of the gradient-matching term, mean over samples.

    Predictions and targets are (B, 1, H, W) or (B, H, W); pixels with gt = 0 (or above
    ``max_depth``) are ignored.

    Args:
        dinov2_slicing: compute what DINOv2's released loss computes instead (see the module
            docstring): (B, 1, H, W) inputs only, ``num_scales`` unused. For reproducing DINOv2's
            depth protocol; it contributes nothing at 2 images per GPU.
    """

    def __init__(
        self,
        num_scales: int = 4,
        eps: float = 1e-3,
        max_depth: float = None,
        loss_weight: float = 1.0,
        loss_name: str = 'loss_grad',
        dinov2_slicing: bool = False,
    ):
        super().__init__()
        self.num_scales, self.eps, self.max_depth = num_scales, eps, max_depth
        self.loss_weight, self._loss_name = loss_weight, loss_name
        self.dinov2_slicing = dinov2_slicing

    @property
    def loss_name(self) -> str:
        return self._loss_name

    def per_sample(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        if pred.dim() == 4:
            if pred.shape[1] != 1:
                raise InputShapeError(
                    f'GradientLoss expects one depth channel, got {pred.shape[1]}'
                )
            pred, target = pred[:, 0], target[:, 0]
        mask = valid_depth(target, self.max_depth)
        log_diff = (torch.log(pred + self.eps) - torch.log(target + self.eps)) * mask
        total = pred.new_zeros(pred.shape[0])
        for scale in range(self.num_scales):
            step = 2**scale
            total = total + gradient_matching(log_diff[:, ::step, ::step], mask[:, ::step, ::step])
        return total

    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        if pred.shape != target.shape:
            raise InputShapeError(
                f'GradientLoss: prediction {tuple(pred.shape)} and target '
                f'{tuple(target.shape)} differ in shape'
            )
        if self.dinov2_slicing:
            if pred.dim() != 4 or pred.shape[1] != 1:
                raise InputShapeError(
                    'GradientLoss(dinov2_slicing=True) reproduces DINOv2 on '
                    f'(B, 1, H, W) depth maps, got {tuple(pred.shape)}'
                )
            return self.loss_weight * dinov2_sliced_gradient(pred, target, self.eps, self.max_depth)
        return self.loss_weight * self.per_sample(pred, target).mean()
