"""Scale-invariant log loss in the form DINOv2's depth heads train with (AdaBins)."""

import torch
from mmengine.logging import MessageHub
from mmseg.registry import MODELS
from torch import nn

from vitspec.errors import InputShapeError


def valid_depth(target: torch.Tensor, max_depth: float = None) -> torch.Tensor:
    """Pixels with a measurement (gt > 0), up to ``max_depth`` if given."""
    mask = target > 0
    return mask & (target <= max_depth) if max_depth is not None else mask


@MODELS.register_module()
class SigLoss(nn.Module):
    """sqrt(Var(g) + mean_weight * mean(g)^2), g = log(pred + eps) - log(gt + eps), over the
    valid pixels of the whole batch (unbiased variance, as DINOv2's ``torch.var(g)``).

    Not mmseg's SiLogLoss, which is sqrt(E[g^2] - 0.5 E[g]^2) per image: a different weighting
    of the scale term. ``warm_up_iters``: for the first iterations of training (the runner's
    iteration, read from the MessageHub) only the mean term is used, as DINOv2's warm_up does.
    """

    def __init__(
        self,
        mean_weight: float = 0.15,
        eps: float = 1e-3,
        max_depth: float = None,
        warm_up_iters: int = 0,
        loss_weight: float = 1.0,
        loss_name: str = 'loss_sig',
    ):
        super().__init__()
        self.mean_weight, self.eps, self.max_depth = mean_weight, eps, max_depth
        self.warm_up_iters, self.loss_weight = warm_up_iters, loss_weight
        self._loss_name = loss_name

    @property
    def loss_name(self) -> str:
        return self._loss_name

    def _warming_up(self) -> bool:
        if not self.warm_up_iters or not self.training:
            return False
        it = MessageHub.get_current_instance().get_info('iter')
        return it is not None and it < self.warm_up_iters

    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        if pred.shape != target.shape:
            raise InputShapeError(
                f'SigLoss: prediction {tuple(pred.shape)} and target '
                f'{tuple(target.shape)} differ in shape'
            )
        mask = valid_depth(target, self.max_depth)
        if not mask.any():
            return pred.sum() * 0  # keeps the graph (DDP) without a NaN from sqrt(0)
        g = torch.log(pred[mask] + self.eps) - torch.log(target[mask] + self.eps)
        scale_term = self.mean_weight * g.mean() ** 2
        if self._warming_up():
            value = scale_term
        else:
            value = (g.var() if g.numel() > 1 else g.sum() * 0) + scale_term
        return self.loss_weight * torch.sqrt(value.clamp_min(1e-12))
