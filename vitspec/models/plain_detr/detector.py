"""Plain-DETR (Lin et al., ICCV 2023) and DINOv3's variant of it as an mmdet detector on any
SpecViT: backbone features (`BackboneFeatures`: blocks taken, optional windows), the transformer
(`PlainDetrHead`), hybrid-matching losses in training and the source's post-processing in test
(top-k of the sigmoid scores over all queries x classes, boxes clipped to the image).

``class_columns``: the logit column of each of the dataset's labels, for a head trained with
other class indices (DINOv3's released head: 91 columns indexed by COCO category id); None:
label i is column i. Inputs must be multiples of the patch size (the source's ViT cuts off
the rest where SpecViT would pad): set the data preprocessor's ``pad_size_divisor``."""

import torch
from mmdet.models.detectors.base import BaseDetector
from mmdet.registry import MODELS
from mmengine.structures import InstanceData

from vitspec.errors import ConfigError, DataFileError, InputShapeError

from .backbone_features import BackboneFeatures, feature_mask
from .box_coding import cxcywh_to_xyxy, xyxy_to_cxcywh
from .criterion import num_targets, set_losses
from .head import PlainDetrHead


@MODELS.register_module()
class PlainDETR(BaseDetector):
    def __init__(
        self,
        backbone: dict,
        head: dict,
        num_windows: int = 0,
        feature_norm: bool = False,
        class_columns=None,
        k_one2many: int = 6,
        lambda_one2many: float = 1.0,
        loss_weights=(2.0, 1.0, 2.0),
        match_weights=(2.0, 1.0, 2.0),
        focal_alpha: float = 0.25,
        test_cfg: dict = None,
        train_cfg: dict = None,
        data_preprocessor: dict = None,
        init_cfg=None,
    ):
        super().__init__(data_preprocessor=data_preprocessor, init_cfg=init_cfg)
        backbone = MODELS.build(backbone)
        self.features = BackboneFeatures(backbone, num_windows, feature_norm)
        head = dict(head)
        head.setdefault('feature_stride', backbone.patch_size)
        self.head = PlainDetrHead(in_channels=self.features.out_channels, **head)
        self.class_columns = None if class_columns is None else list(class_columns)
        self.num_classes = head.get('num_classes', 80)
        if self.class_columns is not None and max(self.class_columns) >= self.num_classes:
            raise ConfigError(
                f'PlainDETR class_columns: a column >= num_classes {self.num_classes}'
            )
        self.k_one2many = k_one2many
        self.lambda_one2many = lambda_one2many
        self.loss_weights = tuple(loss_weights)
        self.match_weights = tuple(match_weights)
        self.focal_alpha = focal_alpha
        self.topk = (test_cfg or {}).get('topk', 100)

    @property
    def backbone(self):
        return self.features.backbone

    def padding_mask(self, inputs, data_samples) -> torch.Tensor:
        """(B, H, W) True outside each image (bottom / right padding of the batch)."""
        B, _, H, W = inputs.shape
        mask = torch.ones(B, H, W, dtype=torch.bool, device=inputs.device)
        for m, sample in zip(mask, data_samples):
            h, w = sample.img_shape[:2]
            m[:h, :w] = False
        return mask

    def extract_feat(self, inputs):
        patch = self.backbone.patch_size
        if inputs.shape[-2] % patch or inputs.shape[-1] % patch:
            raise InputShapeError(
                f'PlainDETR: a {tuple(inputs.shape[-2:])} batch is not a multiple of the patch '
                f'size {patch}; set the data_preprocessor pad_size_divisor to a multiple of it'
            )
        return self.features(inputs)

    def _run(self, inputs, data_samples, one2many=False):
        feats = self.extract_feat(inputs)
        padding = feature_mask(self.padding_mask(inputs, data_samples), feats.shape[-2:])
        return self.head(feats, padding, one2many)

    def _forward(self, inputs, data_samples=None):
        return self._run(inputs, data_samples)

    def _targets(self, data_samples, repeat=1):
        labels, boxes = [], []
        for sample in data_samples:
            gt = sample.gt_instances
            lab = gt.labels
            if self.class_columns is not None:
                lab = lab.new_tensor(self.class_columns)[lab]
            xyxy = gt.bboxes.float() if torch.is_tensor(gt.bboxes) else gt.bboxes.tensor.float()
            flat = (xyxy[:, 2] <= xyxy[:, 0]) | (xyxy[:, 3] <= xyxy[:, 1])
            if flat.any():  # the box deltas take log(size): an inf loss, not a skip
                where = sample.metainfo.get('img_path', 'an image')
                raise DataFileError(
                    f'{where}: {int(flat.sum())} ground-truth '
                    f'boxes without area (e.g. {xyxy[flat][0].tolist()}); filter them in the '
                    "pipeline (mmdet's FilterAnnotations min_gt_bbox_wh)"
                )
            labels.append(lab.repeat(repeat))
            boxes.append(xyxy_to_cxcywh(xyxy).repeat(repeat, 1))
        return labels, boxes

    def _group_losses(self, pred, labels, boxes, suffix, weight=1.0):
        n = num_targets(labels, pred['logits'].device)
        losses = {}
        for layer in range(pred['logits'].shape[0]):
            layer_pred = {k: pred[k][layer] for k in ('logits', 'boxes', 'references', 'deltas')}
            for name, value in set_losses(
                layer_pred,
                labels,
                boxes,
                n,
                self.num_classes,
                self.loss_weights,
                self.match_weights,
                self.focal_alpha,
            ).items():
                losses[f'd{layer}.{name}{suffix}'] = weight * value
        return losses

    def loss(self, inputs, data_samples) -> dict:
        out = self._run(inputs, data_samples, one2many=self.head.num_queries_one2many > 0)
        q = self.head.num_queries
        one2one = {k: out[k][:, :, :q] for k in ('logits', 'boxes', 'references', 'deltas')}
        labels, boxes = self._targets(data_samples)
        losses = self._group_losses(one2one, labels, boxes, '')
        binary = [torch.zeros_like(lab) for lab in labels]  # proposals: one class, column 0
        enc = {k: v[None] for k, v in out['enc'].items()}
        losses.update(
            {
                k.replace('d0.', 'enc.'): v
                for k, v in self._group_losses(enc, binary, boxes, '').items()
            }
        )
        if self.head.num_queries_one2many:
            many = {k: out[k][:, :, q:] for k in ('logits', 'boxes', 'references', 'deltas')}
            labels_k, boxes_k = self._targets(data_samples, self.k_one2many)
            losses.update(
                self._group_losses(many, labels_k, boxes_k, '_one2many', self.lambda_one2many)
            )
        return losses

    def postprocess(self, logits, boxes, data_samples, rescale: bool = True) -> list:
        """The source's PostProcess: top-k (image, query, class) by sigmoid score, boxes clipped
        to the image, then scaled back to the original image."""
        if self.class_columns is not None:
            logits = logits[..., self.class_columns]
        B, Q, K = logits.shape
        scores, index = logits.sigmoid().reshape(B, -1).topk(min(self.topk, Q * K), dim=1)
        xyxy = cxcywh_to_xyxy(boxes).gather(1, (index // K)[..., None].expand(-1, -1, 4))
        results = []
        for b, sample in enumerate(data_samples):
            h, w = sample.img_shape[:2]
            box = torch.stack(
                [
                    xyxy[b, :, 0].clamp(0, w),
                    xyxy[b, :, 1].clamp(0, h),
                    xyxy[b, :, 2].clamp(0, w),
                    xyxy[b, :, 3].clamp(0, h),
                ],
                -1,
            )
            if rescale and 'scale_factor' in sample:
                box = box / box.new_tensor(sample.scale_factor).repeat(2)
            results.append(InstanceData(scores=scores[b], labels=index[b] % K, bboxes=box))
        return results

    def predict(self, inputs, data_samples, rescale: bool = True):
        out = self._run(inputs, data_samples)
        q = self.head.num_queries
        results = self.postprocess(
            out['logits'][-1, :, :q], out['boxes'][-1, :, :q], data_samples, rescale
        )
        return self.add_pred_to_datasample(data_samples, results)
