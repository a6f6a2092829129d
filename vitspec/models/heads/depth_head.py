"""What the depth heads share: depth from logits (bins or regression), losses, prediction."""

from typing import List, Sequence

import torch
import torch.nn.functional as F
from mmengine.model import BaseModule
from mmseg.registry import MODELS
from torch import nn

from vitspec.errors import ConfigError

NORM_STRATEGIES = ('linear', 'softmax')
REGRESSIONS = ('relu', 'sigmoid')


class DepthHead(BaseModule):
    """Base of the depth decode heads, used by mmseg's DepthEstimator.

    Subclasses implement ``logits(inputs) -> (B, out_dims, h, w)``. With ``classify`` the
    logits score ``n_bins`` depths spaced uniformly in [min_depth, max_depth] ('UD', AdaBins)
    and the depth is the probability-weighted mean of the bins; ``norm_strategy`` 'linear'
    (ReLU + 0.1, then divide by the sum, as DINOv2) or 'softmax'. Otherwise the single channel
    is regressed: 'relu' (ReLU + min_depth) or 'sigmoid' (sigmoid * max_depth).
    """

    num_classes = 1  # what EncoderDecoder reads: the output is one depth channel
    out_channels = 1

    def __init__(
        self,
        min_depth: float = 1e-3,
        max_depth: float = 10.0,
        classify: bool = False,
        n_bins: int = 256,
        norm_strategy: str = 'linear',
        regression: str = 'relu',
        loss_decode=(dict(type='SigLoss'),),
        align_corners: bool = False,
        init_cfg=None,
    ):
        super().__init__(init_cfg=init_cfg)
        if norm_strategy not in NORM_STRATEGIES:
            raise ConfigError(f'norm_strategy {norm_strategy!r} is not one of {NORM_STRATEGIES}')
        if regression not in REGRESSIONS:
            raise ConfigError(f'regression {regression!r} is not one of {REGRESSIONS}')
        self.min_depth, self.max_depth = min_depth, max_depth
        self.classify, self.norm_strategy, self.regression = classify, norm_strategy, regression
        self.out_dims = n_bins if classify else 1
        self.register_buffer('bins', torch.linspace(min_depth, max_depth, n_bins), persistent=False)
        self.align_corners = align_corners
        losses = [loss_decode] if isinstance(loss_decode, dict) else list(loss_decode)
        self.losses = nn.ModuleList(MODELS.build(cfg) for cfg in losses)

    def logits(self, inputs: Sequence) -> torch.Tensor:
        raise NotImplementedError

    def depth_from_logits(self, logits: torch.Tensor) -> torch.Tensor:
        if not self.classify:
            if self.regression == 'sigmoid':
                return torch.sigmoid(logits) * self.max_depth
            return F.relu(logits) + self.min_depth
        if self.norm_strategy == 'softmax':
            probs = logits.softmax(dim=1)
        else:
            probs = F.relu(logits) + 0.1
            probs = probs / probs.sum(dim=1, keepdim=True)
        return torch.einsum('bkhw,k->bhw', probs, self.bins.to(probs.dtype)).unsqueeze(1)

    def forward(self, inputs: Sequence) -> torch.Tensor:
        return self.depth_from_logits(self.logits(inputs))

    def loss(self, inputs: Sequence, batch_data_samples: list, train_cfg=None) -> dict:
        gt = torch.stack([s.gt_depth_map.data for s in batch_data_samples]).float()
        depth = F.interpolate(
            self.forward(inputs),
            size=gt.shape[-2:],
            mode='bilinear',
            align_corners=self.align_corners,
        )
        out = {}
        for loss in self.losses:
            out[loss.loss_name] = out.get(loss.loss_name, 0) + loss(depth, gt)
        return out

    def predict(self, inputs: Sequence, batch_img_metas: List[dict], test_cfg=None):
        """Depth clamped to [min, max] at the head's resolution, then resized to the (padded)
        network input: DINOv2's DepthEncoderDecoder.encode_decode clamps before it resizes."""
        meta = batch_img_metas[0]
        if isinstance(meta['img_shape'], torch.Size):  # a window of slide inference
            size = meta['img_shape']
        else:
            size = meta.get('pad_shape', meta['img_shape'])[:2]
        depth = self.forward(inputs).clamp(self.min_depth, self.max_depth)
        return F.interpolate(
            depth, size=tuple(size), mode='bilinear', align_corners=self.align_corners
        )
