"""EoMT as an mmseg segmentor: training with Mask2Former's loss, semantic inference.

"Your ViT is Secretly an Image Segmentation Model" (Kerssies et al., CVPR 2025, arXiv
2503.19108; code tue-mps/eomt). The network (queries in the last blocks, mask module) is
`EoMTNetwork`; this module trains it (tue-mps/eomt ``training/lightning_module.py``
``training_step``: the loss of every layer's prediction, summed) and turns its last prediction
into per-pixel class scores for mmseg's whole / slide inference and ``tools/test.py --tta``.
"""

from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F
from mmengine.config import ConfigDict
from mmseg.models.segmentors import BaseSegmentor
from mmseg.registry import MODELS
from torch import Tensor

from vitspec.checkpoints.filtered import FilteredCheckpoint, filter_under
from vitspec.errors import ConfigError, InputShapeError

from ..segmentors.chunked_encoder_decoder import ChunkedEncoderDecoder
from ..segmentors.row_resize import DEFAULT_CHUNK_BYTES
from .loss import MaskClassificationLoss
from .network import EoMTNetwork


def semantic_scores(
    mask_logits: Tensor, class_logits: Tensor, size: Tuple[int, int], multiple: int = 1
) -> Tensor:
    """Per-pixel class scores (B, K, H, W) of an image of ``size`` from mask logits (B, Q, h, w)
    and class logits (B, Q, K + 1): sum over queries of p(class) (no-object column dropped)
    times the sigmoid of the mask logits bilinearly upsampled (upstream's
    ``to_per_pixel_logits_semantic`` after its ``F.interpolate``). The masks cover the image
    center-padded to a ``multiple`` of the patch size, as the network pads it: they are
    upsampled to the padded size and the image's part is kept."""
    height, width = size
    pad_h, pad_w = -height % multiple, -width % multiple
    masks = F.interpolate(
        mask_logits, size=(height + pad_h, width + pad_w), mode='bilinear', align_corners=False
    )
    masks = masks[..., pad_h // 2 : pad_h // 2 + height, pad_w // 2 : pad_w // 2 + width]
    probs = class_logits.softmax(dim=-1)[..., :-1]
    return torch.einsum('bqhw,bqc->bchw', masks.sigmoid(), probs)


@MODELS.register_module()
class EoMT(ChunkedEncoderDecoder):
    """Encoder-only mask transformer for semantic segmentation.

    Config keys::

        model = dict(
            type='EoMT',
            data_preprocessor=dict(type='SegDataPreProcessor', ...),  # normalizes the images
            backbone=dict(type='SpecViT', ...),  # with_cp=True checkpoints every block
            num_classes=150,
            num_queries=100,         # upstream num_q
            num_blocks=4,            # last blocks that carry the queries (upstream num_blocks)
            query_specialize=None,   # query-token specialization, see EoMTNetwork
            loss=dict(               # MaskClassificationLoss; these are upstream's defaults
                num_points=12544, oversample_ratio=3.0, importance_sample_ratio=0.75,
                mask_coefficient=5.0, dice_coefficient=5.0, class_coefficient=2.0,
                no_object_coefficient=0.1),
            ignore_index=255,        # label excluded from the ground-truth masks
            train_cfg=dict(),
            test_cfg=dict(mode='whole'),  # or dict(mode='slide', crop_size=(h, w), stride=(h, w))
        )

    Mask annealing (the attention mask between queries and patches, removed over training) is
    the hook ``MaskAnnealingHook``; ``network.attn_mask_probs`` holds its state. Training
    losses: ``loss_cls`` / ``loss_mask`` / ``loss_dice`` of the last prediction and
    ``d{i}.loss_*`` of the predictions before each query block. Inference uses the last
    prediction only; ``pred_sem_seg`` and the memory-bounded post-processing are
    ChunkedEncoderDecoder's, ``seg_logits`` are the class scores of `semantic_scores`.
    """

    def __init__(
        self,
        backbone: dict,
        num_classes: int,
        num_queries: int = 100,
        num_blocks: int = 4,
        query_specialize: Optional[dict] = None,
        loss: Optional[dict] = None,
        ignore_index: int = 255,
        train_cfg: Optional[dict] = None,
        test_cfg: Optional[dict] = None,
        data_preprocessor: Optional[dict] = None,
        max_chunk_bytes: int = DEFAULT_CHUNK_BYTES,
        init_cfg=None,
    ):
        # EncoderDecoder's inference and post-processing, without its decode head
        BaseSegmentor.__init__(self, data_preprocessor=data_preprocessor, init_cfg=init_cfg)
        if not isinstance(num_classes, int) or num_classes < 1:
            raise ConfigError(f'EoMT num_classes must be a positive int, got {num_classes!r}')
        if not isinstance(num_queries, int) or num_queries < 1:
            raise ConfigError(f'EoMT num_queries must be a positive int, got {num_queries!r}')
        self.network = EoMTNetwork(
            MODELS.build(backbone),
            num_classes=num_classes,
            num_queries=num_queries,
            num_blocks=num_blocks,
            query_specialize=query_specialize,
        )
        self.criterion = MaskClassificationLoss(
            num_classes=num_classes,
            num_queries=num_queries,
            ignore_index=ignore_index,
            **self._loss_cfg(loss),
        )
        self.num_classes = num_classes
        self.out_channels = num_classes
        self.align_corners = False
        self.max_chunk_bytes = max_chunk_bytes
        self.train_cfg = train_cfg
        self.test_cfg = ConfigDict(test_cfg if test_cfg is not None else dict(mode='whole'))

    @staticmethod
    def _loss_cfg(loss: Optional[dict]) -> dict:
        loss = dict(loss or {})
        if 'type' in loss:
            raise ConfigError(
                f'EoMT loss.type={loss["type"]!r}: the loss is MaskClassificationLoss, give '
                f'only its arguments'
            )
        return loss

    @property
    def decode_head(self) -> MaskClassificationLoss:
        """What tools read of a segmentor's decode head (``num_classes``, ``ignore_index``,
        e.g. the training-targets check): the loss, which holds both."""
        return self.criterion

    def extract_feat(self, inputs: Tensor) -> Tuple[List[Tensor], List[Tensor]]:
        """Mask logits and class logits of every prediction layer (the network's forward)."""
        return self.network(inputs)

    def encode_decode(self, inputs: Tensor, batch_img_metas: List[dict]) -> Tensor:
        # inference reads the last prediction only: in eval mode the network skips the others
        mask_logits_per_layer, class_logits_per_layer = self.network(
            inputs, last_only=not self.training
        )
        return semantic_scores(
            mask_logits_per_layer[-1],
            class_logits_per_layer[-1],
            inputs.shape[-2:],
            self.backbone.patch_size,
        )

    def loss(self, inputs: Tensor, data_samples: list) -> Dict[str, Tensor]:
        patch = self.backbone.patch_size
        if inputs.shape[-2] % patch or inputs.shape[-1] % patch:
            # the network would pad the image and its masks would no longer align with the
            # ground truth the loss samples at the same normalized points
            raise InputShapeError(
                f'EoMT trains on images whose size is a multiple of the patch size {patch}, got '
                f'{tuple(inputs.shape[-2:])}: set data_preprocessor.size_divisor={patch} (or a '
                'crop size that is a multiple)'
            )
        mask_logits_per_layer, class_logits_per_layer = self.network(inputs)
        return self.criterion(mask_logits_per_layer, class_logits_per_layer, data_samples)

    def _forward(self, inputs: Tensor, data_samples=None):
        return self.network(inputs)

    def filter_checkpoint(self, state_dict: dict) -> FilteredCheckpoint:
        """A full EoMT checkpoint (``load_from``, resume) adapted through the network's filter
        (`EoMTNetwork.filter_checkpoint`: former query-copy names, absent query copies)."""
        return filter_under('network.', self.network.filter_checkpoint, state_dict)

    @property
    def backbone(self):
        """The network's ViT: what backbone-wide hooks and optimizer rules look at."""
        return self.network.backbone
