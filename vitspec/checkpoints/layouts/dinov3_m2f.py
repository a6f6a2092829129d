"""DINOv3's released ADE20K Mask2Former segmentor, mapped to mmseg's ``Mask2FormerHead``.

hub/segmentors.py loads ``dinov3_vit7b16_ade20k_m2f_head-bf307cb1.pth`` into a FeatureDecoder, so
its keys are ``segmentation_model.0.*`` (DINOv3_Adapter; its frozen ViT under ``.backbone.`` is
not in the file) and ``segmentation_model.1.*`` (Mask2FormerHead: ``pixel_decoder``, ``predictor``).
Read in facebookresearch/dinov3 dinov3/eval/segmentation/models/heads/{mask2former_head,
pixel_decoder, mask2former_transformer_decoder}.py, the head is mmdet's structure with other names:

- pixel decoder: Deformable-DETR encoder layers, post-norm (attention, add, norm1; FFN, add, norm2)
  as mmdet's DeformableDetrTransformerEncoderLayer (norms.0, norms.1); ``input_convs`` are
  (Conv2d, GroupNorm(32)) as mmdet's ConvModules (``.conv``, ``.gn``), from the coarsest of the 3
  encoder levels as mmdet's; the level embedding is a Parameter where mmdet has an Embedding; one
  lateral / output conv pair on the finest map (no conv bias under GN), as mmdet's for 4 inputs.
- transformer decoder: per layer cross-attention, self-attention, FFN, each post-norm: mmdet's
  Mask2FormerTransformerDecoderLayer with norms.0 / 1 / 2 in that order; nn.MultiheadAttention
  inside mmcv's MultiheadAttention (``.attn``); ``class_embed`` is mmdet's ``cls_embed``; the
  3-layer ``mask_embed`` MLP is mmdet's Sequential (Linear, ReLU) x 2 + Linear (0, 2, 4).
- ``predictor.input_proj`` is empty (in_channels == hidden_dim, enforce_input_project False), as
  mmdet's Identity with enforce_decoder_input_project=False; a projecting one maps to
  ``decoder_input_projs``.
The released numbers (hidden_dim 2048, 16 heads, FFN 4096, 6 encoder / 9 decoder layers, 100
queries) are config values; nothing in the layout differs from mmdet's beyond names.
"""

import re

from vitspec.errors import CheckpointError

from .rename import SAME, rename_keys

SEGMENTOR_PREFIX = 'segmentation_model.'
HEAD_PREFIX = 'segmentation_model.1.'
ADAPTER_PREFIX = 'segmentation_model.0.'
FROZEN_VIT_PREFIX = 'segmentation_model.0.backbone.'

_ENCODER = r'^pixel_decoder\.encoder\.encoder\.layers\.(\d+)\.'
_DECODER = r'^predictor\.transformer_'

HEAD_RULES = [
    (r'^pixel_decoder\.input_convs\.(\d+)\.0\.', r'pixel_decoder.input_convs.\1.conv.'),
    (r'^pixel_decoder\.input_convs\.(\d+)\.1\.', r'pixel_decoder.input_convs.\1.gn.'),
    (r'^pixel_decoder\.encoder\.level_encoding$', 'pixel_decoder.level_encoding.weight'),
    (_ENCODER + r'self_attn\.', r'pixel_decoder.encoder.layers.\1.self_attn.'),
    (_ENCODER + r'norm1\.', r'pixel_decoder.encoder.layers.\1.norms.0.'),
    (_ENCODER + r'norm2\.', r'pixel_decoder.encoder.layers.\1.norms.1.'),
    (_ENCODER + r'linear1\.', r'pixel_decoder.encoder.layers.\1.ffn.layers.0.0.'),
    (_ENCODER + r'linear2\.', r'pixel_decoder.encoder.layers.\1.ffn.layers.1.'),
    (r'^pixel_decoder\.(lateral|output)_convs\.(\d+)\.norm\.', r'pixel_decoder.\1_convs.\2.gn.'),
    (
        r'^pixel_decoder\.(lateral|output)_convs\.(\d+)\.weight$',
        r'pixel_decoder.\1_convs.\2.conv.weight',
    ),
    (r'^pixel_decoder\.mask_feature\.', 'pixel_decoder.mask_feature.'),
    (
        _DECODER + r'cross_attention_layers\.(\d+)\.multihead_attn\.',
        r'transformer_decoder.layers.\1.cross_attn.attn.',
    ),
    (
        _DECODER + r'cross_attention_layers\.(\d+)\.norm\.',
        r'transformer_decoder.layers.\1.norms.0.',
    ),
    (
        _DECODER + r'self_attention_layers\.(\d+)\.self_attn\.',
        r'transformer_decoder.layers.\1.self_attn.attn.',
    ),
    (_DECODER + r'self_attention_layers\.(\d+)\.norm\.', r'transformer_decoder.layers.\1.norms.1.'),
    (_DECODER + r'ffn_layers\.(\d+)\.linear1\.', r'transformer_decoder.layers.\1.ffn.layers.0.0.'),
    (_DECODER + r'ffn_layers\.(\d+)\.linear2\.', r'transformer_decoder.layers.\1.ffn.layers.1.'),
    (_DECODER + r'ffn_layers\.(\d+)\.norm\.', r'transformer_decoder.layers.\1.norms.2.'),
    (r'^predictor\.post_norm\.', 'transformer_decoder.post_norm.'),
    (r'^predictor\.(query_feat|query_embed|level_embed)\.weight$', r'\1.weight'),
    (r'^predictor\.input_proj\.(\d+)\.', r'decoder_input_projs.\1.'),
    (r'^predictor\.class_embed\.', 'cls_embed.'),
    (r'^predictor\.mask_embed\.layers\.([012])\.', lambda m: f'mask_embed.{2 * int(m[1])}.'),
]


def from_dinov3_m2f_head(sd: dict) -> dict:
    """DINOv3's Mask2FormerHead (keys without ``segmentation_model.1.``) -> mmseg's."""
    return rename_keys(sd, HEAD_RULES, "DINOv3's Mask2Former head")


def split_segmentor(sd: dict) -> tuple:
    """(head tensors, adapter tensors, the other keys) of a DINOv3 FeatureDecoder state dict,
    prefixes stripped; the frozen ViT's keys, if the file has them, are among the others."""
    if not any(k.startswith(SEGMENTOR_PREFIX) for k in sd):
        raise CheckpointError(
            f'no {SEGMENTOR_PREFIX}* key: not a DINOv3 segmentor (hub/segmentors.py layout)'
        )
    head, adapter, others = {}, {}, []
    for key, value in sd.items():
        if key.startswith(HEAD_PREFIX):
            head[key[len(HEAD_PREFIX) :]] = value
        elif key.startswith(ADAPTER_PREFIX) and not key.startswith(FROZEN_VIT_PREFIX):
            adapter[key[len(ADAPTER_PREFIX) :]] = value
        else:
            others.append(key)
    return head, adapter, sorted(others)


# DINOv3_Adapter (dinov3/eval/segmentation/models/backbone/dinov3_adapter.py) keeps
# ViT-Adapter's names, as ViTAdapter does: the same keys, its ViT under ``vit.`` instead of
# ``backbone.``. It has no injectors (InteractionBlockWithCls builds extractors only).
ADAPTER_PARTS = re.compile(
    r'^(level_embed$|spm\.|up\.|norm[1-4]\.'
    r'|interactions\.\d+\.(extractor|extra_extractors\.\d+)\.)'
)


def from_dinov3_adapter(sd: dict) -> dict:
    """DINOv3_Adapter's own tensors (keys without ``segmentation_model.0.``) -> ViTAdapter's."""
    return rename_keys(sd, [(ADAPTER_PARTS, SAME)], "DINOv3's adapter")


def with_own_vit(backbone_state: dict, adapter: dict) -> dict:
    """ViTAdapter's whole state: its ViT's tensors as they are (loaded from the backbone
    checkpoint; the released file has none) and the converted adapter's."""
    return {**{k: v for k, v in backbone_state.items() if k.startswith('vit.')}, **adapter}
