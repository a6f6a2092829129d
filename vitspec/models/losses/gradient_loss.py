"""Multi-scale gradient-matching loss (MegaDepth) on log depth, computed per sample.

DINOv2's GradientLoss indexes (B, 1, H, W) tensors as if they were (H, W) maps, so its
"spatial" differences run over the batch and channel axes (zero for batch size 1 or 2).
This one differentiates along H and W of each sample.
"""
import torch
from mmseg.registry import MODELS
from torch import nn

from .sig_loss import valid_depth


def gradient_matching(log_diff: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per-sample sum of |d/dx| and |d/dy| of the log-depth difference over pairs of valid
    neighbours, divided by the number of valid pixels. Inputs (B, H, W); returns (B,)."""
    mask = mask.to(log_diff.dtype)
    dx = (log_diff[:, :, 1:] - log_diff[:, :, :-1]).abs() * mask[:, :, 1:] * mask[:, :, :-1]
    dy = (log_diff[:, 1:] - log_diff[:, :-1]).abs() * mask[:, 1:] * mask[:, :-1]
    count = mask.sum(dim=(1, 2)).clamp_min(1)
    return (dx.sum(dim=(1, 2)) + dy.sum(dim=(1, 2))) / count


@MODELS.register_module()
class GradientLoss(nn.Module):
    """sum over scales (stride 1, 2, 4, ...) of the gradient-matching term, mean over samples.

    Predictions and targets are (B, 1, H, W) or (B, H, W); pixels with gt = 0 (or above
    ``max_depth``) are ignored.
    """

    def __init__(self, num_scales: int = 4, eps: float = 1e-3, max_depth: float = None,
                 loss_weight: float = 1.0, loss_name: str = 'loss_grad'):
        super().__init__()
        self.num_scales, self.eps, self.max_depth = num_scales, eps, max_depth
        self.loss_weight, self._loss_name = loss_weight, loss_name

    @property
    def loss_name(self) -> str:
        return self._loss_name

    def per_sample(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        if pred.shape != target.shape:
            raise ValueError(f'GradientLoss: prediction {tuple(pred.shape)} and target '
                             f'{tuple(target.shape)} differ in shape')
        if pred.dim() == 4:
            if pred.shape[1] != 1:
                raise ValueError(f'GradientLoss expects one depth channel, got {pred.shape[1]}')
            pred, target = pred[:, 0], target[:, 0]
        mask = valid_depth(target, self.max_depth)
        log_diff = (torch.log(pred + self.eps) - torch.log(target + self.eps)) * mask
        total = pred.new_zeros(pred.shape[0])
        for scale in range(self.num_scales):
            step = 2 ** scale
            total = total + gradient_matching(log_diff[:, ::step, ::step],
                                              mask[:, ::step, ::step])
        return total

    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return self.loss_weight * self.per_sample(pred, target).mean()
