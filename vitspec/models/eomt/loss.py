"""Mask2Former's set loss over per-query masks and classes, as EoMT trains with it.

EoMT (Kerssies et al., arXiv 2503.19108; tue-mps/eomt ``training/mask_classification_loss.py``)
trains with Mask2Former's loss: Hungarian matching of queries to ground-truth masks on costs
``class_coefficient * -p(class) + mask_coefficient * sigmoid CE + dice_coefficient * dice``
(the mask costs on ``num_points`` random points), then for matched queries the sigmoid CE and
dice losses on points chosen by uncertainty (``oversample_ratio``, ``importance_sample_ratio``),
and for all queries the class cross-entropy with the no-object class weighted by
``no_object_coefficient``. The matching and losses are mmdet's Mask2FormerHead's own methods,
run on a module that has only what they read; semantic maps become one binary mask per class
present by mmseg's Mask2FormerHead's conversion (the ignore index excluded).
"""

from typing import Dict, List, Sequence

import torch
from mmdet.models.dense_heads import Mask2FormerHead as MMDetMask2FormerHead
from mmdet.registry import MODELS as MMDET_MODELS
from mmdet.registry import TASK_UTILS
from mmseg.models.decode_heads import Mask2FormerHead as MMSegMask2FormerHead
from torch import Tensor, nn

from vitspec.errors import ConfigError

# tue-mps/eomt training/mask_classification_semantic.py (MaskClassificationSemantic defaults)
EOMT_LOSS_DEFAULTS = dict(
    num_points=12544,
    oversample_ratio=3.0,
    importance_sample_ratio=0.75,
    mask_coefficient=5.0,
    dice_coefficient=5.0,
    class_coefficient=2.0,
    no_object_coefficient=0.1,
)


class MaskClassificationLoss(nn.Module):
    """Mask2Former's matching and losses for ``num_classes`` classes and ``num_queries`` queries.

    ``forward`` takes the predictions of every layer (deep supervision: each layer is matched and
    weighted alike, as upstream's ``loss_total``) and returns mmdet's loss dict: ``loss_cls``,
    ``loss_mask``, ``loss_dice`` of the last layer and ``d{i}.loss_*`` of the earlier ones.
    The losses run in float32 outside autocast: the matching is solved on the CPU in float64,
    and the point sampling and cross-entropies are a small part of the step.
    """

    # mmdet's methods, which read only the attributes set in __init__
    _seg_data_to_instance_data = MMSegMask2FormerHead._seg_data_to_instance_data
    get_targets = MMDetMask2FormerHead.get_targets
    _get_targets_single = MMDetMask2FormerHead._get_targets_single
    _loss_by_feat_single = MMDetMask2FormerHead._loss_by_feat_single
    loss_by_feat = MMDetMask2FormerHead.loss_by_feat

    def __init__(
        self,
        num_classes: int,
        num_queries: int,
        num_points: int = EOMT_LOSS_DEFAULTS['num_points'],
        oversample_ratio: float = EOMT_LOSS_DEFAULTS['oversample_ratio'],
        importance_sample_ratio: float = EOMT_LOSS_DEFAULTS['importance_sample_ratio'],
        mask_coefficient: float = EOMT_LOSS_DEFAULTS['mask_coefficient'],
        dice_coefficient: float = EOMT_LOSS_DEFAULTS['dice_coefficient'],
        class_coefficient: float = EOMT_LOSS_DEFAULTS['class_coefficient'],
        no_object_coefficient: float = EOMT_LOSS_DEFAULTS['no_object_coefficient'],
        ignore_index: int = 255,
    ):
        super().__init__()
        if num_points < 1:
            raise ConfigError(f'loss.num_points must be positive, got {num_points}')
        if oversample_ratio < 1:
            raise ConfigError(f'loss.oversample_ratio must be at least 1, got {oversample_ratio}')
        if not 0 <= importance_sample_ratio <= 1:
            raise ConfigError(
                f'loss.importance_sample_ratio must be in [0, 1], got {importance_sample_ratio}'
            )
        self.num_classes = num_classes
        self.num_queries = num_queries
        self.num_points = num_points
        self.oversample_ratio = oversample_ratio
        self.importance_sample_ratio = importance_sample_ratio
        self.ignore_index = ignore_index
        # 'mmdet.' types: under mmseg's default scope a bare name would build mmseg's namesake
        self.assigner = TASK_UTILS.build(
            dict(
                type='mmdet.HungarianAssigner',
                match_costs=[
                    dict(type='mmdet.ClassificationCost', weight=class_coefficient),
                    dict(
                        type='mmdet.CrossEntropyLossCost', weight=mask_coefficient, use_sigmoid=True
                    ),
                    dict(type='mmdet.DiceCost', weight=dice_coefficient, pred_act=True, eps=1.0),
                ],
            )
        )
        self.sampler = TASK_UTILS.build(dict(type='mmdet.MaskPseudoSampler'))
        self.class_weight = [1.0] * num_classes + [no_object_coefficient]
        self.loss_cls = MMDET_MODELS.build(
            dict(
                type='mmdet.CrossEntropyLoss',
                use_sigmoid=False,
                loss_weight=class_coefficient,
                reduction='mean',
                class_weight=self.class_weight,
            )
        )
        self.loss_mask = MMDET_MODELS.build(
            dict(
                type='mmdet.CrossEntropyLoss',
                use_sigmoid=True,
                reduction='mean',
                loss_weight=mask_coefficient,
            )
        )
        self.loss_dice = MMDET_MODELS.build(
            dict(
                type='mmdet.DiceLoss',
                use_sigmoid=True,
                activate=True,
                reduction='mean',
                naive_dice=True,
                eps=1.0,
                loss_weight=dice_coefficient,
            )
        )

    def forward(
        self,
        mask_logits_per_layer: Sequence[Tensor],
        class_logits_per_layer: Sequence[Tensor],
        batch_data_samples: List,
    ) -> Dict[str, Tensor]:
        """Losses of every layer's ``(B, Q, h, w)`` mask and ``(B, Q, K + 1)`` class logits
        against the ``gt_sem_seg`` of ``batch_data_samples``."""
        gt_instances, img_metas = self._seg_data_to_instance_data(batch_data_samples)
        return self.loss_instances(
            mask_logits_per_layer, class_logits_per_layer, gt_instances, img_metas
        )

    def loss_instances(
        self,
        mask_logits_per_layer: Sequence[Tensor],
        class_logits_per_layer: Sequence[Tensor],
        gt_instances: list,
        img_metas: List[dict],
    ) -> Dict[str, Tensor]:
        """The same losses against per-image ground-truth masks and labels (mmdet
        ``InstanceData`` with ``labels`` (n,) and ``masks`` (n, H, W) of the padded input):
        one mask per thing instance and per stuff class for panoptic training (`EoMTPanoptic`),
        the instances alone for instance segmentation."""
        if len(mask_logits_per_layer) != len(class_logits_per_layer):
            raise ValueError(
                f'{len(mask_logits_per_layer)} layers of mask logits but '
                f'{len(class_logits_per_layer)} of class logits'
            )
        device_type = mask_logits_per_layer[-1].device.type
        with torch.autocast(device_type=device_type, enabled=False):
            return self.loss_by_feat(
                [logits.float() for logits in class_logits_per_layer],
                [logits.float() for logits in mask_logits_per_layer],
                gt_instances,
                img_metas,
            )
