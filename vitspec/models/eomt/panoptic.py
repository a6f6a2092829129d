"""EoMT as an mmdet detector: panoptic and instance segmentation (COCO).

tue-mps/eomt trains the same network for panoptic (``training/mask_classification_panoptic.py``)
and instance segmentation (``training/mask_classification_instance.py``) with the semantic
loss, on one ground-truth mask per thing instance and per stuff class (crowd regions left out).
Its post-processing (``training/lightning_module.py`` ``to_per_pixel_preds_panoptic`` and the
instance module's ``eval_step``) is the one mmdet's ``MaskFormerFusionHead`` implements, so
that head is reused; what differs is listed in docs/mask_classification.md:

- panoptic: keep queries whose top class is not "no object" with p > ``object_mask_thr``
  (upstream ``mask_thresh`` 0.8); each pixel goes to the kept query of the largest p * sigmoid;
  a query's segment is its pixels there with sigmoid >= 0.5, dropped when its argmax area over
  its own >= 0.5 area is under ``iou_thr`` (upstream ``overlap_thresh`` 0.8); stuff segments of
  one class merge. Upstream names stuff by a list, mmdet by index: things are the first
  ``num_things_classes`` labels (COCO panoptic's order, as upstream's ``stuff_classes`` 80-132).
- instance: the top ``max_per_image`` (upstream ``eval_top_k_instances`` 100) of queries x
  classes by p(class); masks are logits > 0; score = p(class) x the mean sigmoid inside the mask.
"""

from typing import Dict, Optional

import torch.nn.functional as F
from mmdet.models.dense_heads import MaskFormerHead
from mmdet.models.detectors import BaseDetector, MaskFormer
from mmdet.models.seg_heads import MaskFormerFusionHead
from mmdet.registry import MODELS
from mmengine.config import ConfigDict
from torch import Tensor

from vitspec.errors import ConfigError, InputShapeError

from .loss import MaskClassificationLoss
from .network import EoMTNetwork

# tue-mps/eomt training/mask_classification_panoptic.py (mask_thresh, overlap_thresh) and
# mask_classification_instance.py (eval_top_k_instances), in MaskFormerFusionHead's names
EOMT_TEST_CFG = dict(
    panoptic_on=True,
    instance_on=True,
    semantic_on=False,
    object_mask_thr=0.8,
    iou_thr=0.8,
    filter_low_score=True,
    max_per_image=100,
)


@MODELS.register_module()
class EoMTPanoptic(BaseDetector):
    """Encoder-only mask transformer for panoptic and instance segmentation.

    Config keys::

        model = dict(
            type='EoMTPanoptic',
            data_preprocessor=dict(type='DetDataPreprocessor', pad_size_divisor=<patch>,
                                   pad_mask=True, pad_seg=True, seg_pad_value=255, ...),
            backbone=dict(type='SpecViT', ...),
            num_things_classes=80, num_stuff_classes=53,  # instance only: num_stuff_classes=0
            num_queries=200, num_blocks=4, query_specialize=None,
            loss=dict(...),           # MaskClassificationLoss arguments (EoMT's defaults)
            test_cfg=dict(panoptic_on=True, instance_on=True, object_mask_thr=0.8,
                          iou_thr=0.8, filter_low_score=True, max_per_image=100),
        )

    Training targets: mmdet's ``MaskFormerHead.preprocess_gt`` (the thing instances of
    ``gt_instances`` plus one mask per stuff class of ``gt_sem_seg``, VOID 255 and crowd
    regions in no mask). Predictions: ``pred_panoptic_seg`` (class + instance * 1000, VOID =
    ``num_classes``) and ``pred_instances`` (masks, labels, scores, bboxes from the masks) of
    the last layer, for mmdet's metrics. Inputs must be a multiple of the patch size.
    """

    # mmdet's methods, which read only num_things_classes / num_stuff_classes
    preprocess_gt = MaskFormerHead.preprocess_gt
    add_pred_to_datasample = MaskFormer.add_pred_to_datasample

    def __init__(
        self,
        backbone: dict,
        num_things_classes: int,
        num_stuff_classes: int = 0,
        num_queries: int = 200,
        num_blocks: int = 4,
        query_specialize: Optional[dict] = None,
        loss: Optional[dict] = None,
        train_cfg: Optional[dict] = None,
        test_cfg: Optional[dict] = None,
        data_preprocessor: Optional[dict] = None,
        init_cfg=None,
    ):
        super().__init__(data_preprocessor=data_preprocessor, init_cfg=init_cfg)
        for name, value, least in (
            ('num_things_classes', num_things_classes, 0),
            ('num_stuff_classes', num_stuff_classes, 0),
            ('num_queries', num_queries, 1),
        ):
            if not isinstance(value, int) or value < least:
                raise ConfigError(f'EoMTPanoptic {name} must be an int >= {least}, got {value!r}')
        num_classes = num_things_classes + num_stuff_classes
        if num_classes < 1:
            raise ConfigError('EoMTPanoptic needs at least one class (things + stuff)')
        loss = dict(loss or {})
        if 'type' in loss or 'ignore_index' in loss:
            raise ConfigError(
                'EoMTPanoptic loss: give only MaskClassificationLoss coefficients (no type, no '
                'ignore_index: VOID pixels are in no ground-truth mask)'
            )
        self.num_things_classes = num_things_classes
        self.num_stuff_classes = num_stuff_classes
        self.num_classes = num_classes
        self.network = EoMTNetwork(
            MODELS.build(backbone),
            num_classes=num_classes,
            num_queries=num_queries,
            num_blocks=num_blocks,
            query_specialize=query_specialize,
        )
        self.criterion = MaskClassificationLoss(
            num_classes=num_classes, num_queries=num_queries, **loss
        )
        self.test_cfg = ConfigDict({**EOMT_TEST_CFG, **(test_cfg or {})})
        # the top-k runs over queries x classes: with fewer pairs, all of them
        self.test_cfg.max_per_image = min(self.test_cfg.max_per_image, num_queries * num_classes)
        self.train_cfg = train_cfg
        self.fusion_head = MaskFormerFusionHead(
            num_things_classes=num_things_classes,
            num_stuff_classes=num_stuff_classes,
            test_cfg=self.test_cfg,
        )

    @property
    def backbone(self):
        """The network's ViT: what backbone-wide hooks and optimizer rules look at."""
        return self.network.backbone

    def _check_input(self, inputs: Tensor) -> None:
        patch = self.backbone.patch_size
        if inputs.shape[-2] % patch or inputs.shape[-1] % patch:
            # the network would center-pad the image and its masks would no longer cover the
            # batch the ground truth and the post-processing are laid out on
            raise InputShapeError(
                f'EoMTPanoptic needs inputs whose size is a multiple of the patch size {patch}, '
                f'got {tuple(inputs.shape[-2:])}: set data_preprocessor.pad_size_divisor={patch}'
            )

    def extract_feat(self, inputs: Tensor):
        """Mask logits and class logits of every prediction layer (the network's forward)."""
        return self.network(inputs)

    def _forward(self, inputs: Tensor, data_samples=None):
        return self.network(inputs)

    def loss(self, inputs: Tensor, data_samples: list) -> Dict[str, Tensor]:
        self._check_input(inputs)
        mask_logits_per_layer, class_logits_per_layer = self.network(inputs)
        gt_instances = [sample.gt_instances for sample in data_samples]
        gt_sem_segs = [
            sample.gt_sem_seg if 'gt_sem_seg' in sample else None for sample in data_samples
        ]
        if self.num_stuff_classes and any(seg is None for seg in gt_sem_segs):
            raise ConfigError(
                'EoMTPanoptic with stuff classes trains on gt_sem_seg: load the panoptic '
                'annotations with LoadPanopticPNG (with_seg=True)'
            )
        targets = self.preprocess_gt(gt_instances, gt_sem_segs)
        img_metas = [sample.metainfo for sample in data_samples]
        return self.criterion.loss_instances(
            mask_logits_per_layer, class_logits_per_layer, targets, img_metas
        )

    def predict(self, inputs: Tensor, data_samples: list, rescale: bool = True) -> list:
        self._check_input(inputs)
        mask_logits_per_layer, class_logits_per_layer = self.network(inputs, last_only=True)
        mask_logits = F.interpolate(
            mask_logits_per_layer[-1].float(),
            size=inputs.shape[-2:],
            mode='bilinear',
            align_corners=False,
        )
        results = self.fusion_head.predict(
            class_logits_per_layer[-1].float(), mask_logits, data_samples, rescale=rescale
        )
        return self.add_pred_to_datasample(data_samples, results)
