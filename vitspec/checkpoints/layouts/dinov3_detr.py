"""DINOv3's released COCO detector head (``dinov3_vit7b16_coco2017_detr_head-*.pth``), mapped to
PlainDETR's parameter names.

hub/detectors.py loads the file's ``model`` entry into dinov3/eval/detection/models/detr.py's
PlainDETRReParam (strict=False; the frozen ViT is the separately released backbone). Its names,
read there and in transformer.py, transformer_encoder.py, global_rpe_decomp_decoder.py,
backbone.py and windows.py:

- ``input_proj.0.{0,1}``: Conv2d 1x1 and GroupNorm(32): our ``head.input_proj.{0,1}``.
- ``transformer.level_embed`` (1, C); ``transformer.enc_output`` / ``enc_output_norm`` (the
  proposals' memory projection); ``transformer.pos_trans`` / ``pos_trans_norm`` (query
  positions); ``transformer.enc_output_proj.L.*`` (the stride pyramid; its LayerNorm2D keeps its
  LayerNorm under ``.ln``, timm's LayerNorm2d is one).
- ``transformer.encoder.layers.N``: torch's MultiheadAttention ``self_attn``, ``linear1/2``,
  post-norm ``norm1/2``: mmdet's DetrTransformerEncoderLayer (``self_attn.attn``,
  ``ffn.layers.0.0`` / ``ffn.layers.1``, ``norms.0/1``).
- ``transformer.decoder.layers.N``: ``self_attn`` (torch's, kept), ``cross_attn`` with
  ``cpb_mlp1`` (x) / ``cpb_mlp2`` (y) and ``q, k, v, proj``, FFN ``linear1/2``; ``norm2`` goes
  before the self-attention, ``norm1`` before the cross-attention, ``norm3`` before the FFN:
  our ``norms.0/1/2`` in that order. ``transformer.decoder.final_layer_norm``.
- ``class_embed.N`` and ``bbox_embed.N.layers.{0,1,2}`` (N = decoder layers + 1, the last for
  the proposals); ``transformer.decoder.class_embed`` / ``bbox_embed`` are the same modules
  registered twice (detr.py's "hack implementation"): equal copies, checked and dropped.
- ``query_embed.weight``: one-to-one then one-to-many content queries.
- ``backbone.0.[_backbone.]layer_norms.N.ln``: the optional per-layer LayerNorms
  (backbone_use_layernorm, off in the released config); ``backbone.0.[_backbone.]backbone.*``:
  the frozen ViT, if a file holds it: not taken (the backbone is the converted ViT checkpoint).
"""

import re

import torch

from vitspec.errors import CheckpointError

from .rename import rename_keys

_DEC = r'^transformer\.decoder\.layers\.(\d+)\.'
_ENC = r'^transformer\.encoder\.layers\.(\d+)\.'
FROZEN_VIT = re.compile(r'^backbone\.0\.(_backbone\.)?backbone\.')
SHARED = re.compile(r'^transformer\.decoder\.(class_embed|bbox_embed)\.')

RULES = [
    (r'^input_proj\.0\.([01])\.', r'head.input_proj.\1.'),
    (r'^transformer\.level_embed$', 'head.level_embed'),
    (r'^transformer\.enc_output\.', 'head.proposals.memory_proj.'),
    (r'^transformer\.enc_output_norm\.', 'head.proposals.memory_norm.'),
    (r'^transformer\.enc_output_proj\.(\d+)\.(\d+)\.ln\.', r'head.proposals.levels.\1.\2.'),
    (r'^transformer\.enc_output_proj\.(\d+)\.(\d+)\.', r'head.proposals.levels.\1.\2.'),
    (r'^transformer\.pos_trans\.', 'head.query_pos_proj.'),
    (r'^transformer\.pos_trans_norm\.', 'head.query_pos_norm.'),
    (_ENC + r'self_attn\.', r'head.encoder.layers.\1.self_attn.attn.'),
    (_ENC + r'linear1\.', r'head.encoder.layers.\1.ffn.layers.0.0.'),
    (_ENC + r'linear2\.', r'head.encoder.layers.\1.ffn.layers.1.'),
    (_ENC + r'norm([12])\.', lambda m: f'head.encoder.layers.{m[1]}.norms.{int(m[2]) - 1}.'),
    (_DEC + r'cross_attn\.cpb_mlp1\.', r'head.decoder.layers.\1.cross_attn.rpb_x.'),
    (_DEC + r'cross_attn\.cpb_mlp2\.', r'head.decoder.layers.\1.cross_attn.rpb_y.'),
    (_DEC + r'cross_attn\.(q|k|v|proj)\.', r'head.decoder.layers.\1.cross_attn.\2.'),
    (_DEC + r'self_attn\.', r'head.decoder.layers.\1.self_attn.'),
    (_DEC + r'norm2\.', r'head.decoder.layers.\1.norms.0.'),
    (_DEC + r'norm1\.', r'head.decoder.layers.\1.norms.1.'),
    (_DEC + r'norm3\.', r'head.decoder.layers.\1.norms.2.'),
    (_DEC + r'linear1\.', r'head.decoder.layers.\1.ffn.layers.0.0.'),
    (_DEC + r'linear2\.', r'head.decoder.layers.\1.ffn.layers.1.'),
    (r'^transformer\.decoder\.final_layer_norm\.', 'head.decoder.final_norm.'),
    (r'^class_embed\.(\d+)\.', r'head.cls_branches.\1.'),
    (r'^bbox_embed\.(\d+)\.layers\.(\d)\.', lambda m: f'head.reg_branches.{m[1]}.{2 * int(m[2])}.'),
    (r'^query_embed\.weight$', 'head.query_embed.weight'),
    (r'^backbone\.0\.(_backbone\.)?layer_norms\.(\d+)\.ln\.', r'features.feature_norms.\2.'),
]


def detector_state_dict(checkpoint) -> dict:
    """The tensors of a released detector file: its ``model`` entry (what hub/detectors.py
    loads), else the file itself when it is a tensor dict; ``module.`` prefixes dropped."""
    if isinstance(checkpoint, dict) and isinstance(checkpoint.get('model'), dict):
        checkpoint = checkpoint['model']
    if not isinstance(checkpoint, dict):
        raise CheckpointError(
            f'a released DINOv3 detector is a dict of tensors, not a {type(checkpoint)}'
        )
    return {k[len('module.') :] if k.startswith('module.') else k: v for k, v in checkpoint.items()}


def from_dinov3_detector(sd: dict) -> tuple:
    """(PlainDETR's head / feature-norm tensors, the frozen ViT keys left out). CheckpointError
    for keys of no known part, or shared branch copies that differ from the branches."""
    kept, frozen = {}, []
    for key, value in sd.items():
        if FROZEN_VIT.match(key):
            frozen.append(key)
            continue
        if SHARED.match(key):
            twin = key[len('transformer.decoder.') :]
            if twin in sd and not torch.equal(sd[twin], value):
                raise CheckpointError(
                    f'{key} differs from {twin}: they are one module in the source'
                )
            if twin in sd:
                continue
            key = twin
        kept[key] = value
    out = rename_keys(kept, RULES, "DINOv3's detector")
    if not out:
        raise CheckpointError("DINOv3's detector: the file holds no head tensors")
    return out, sorted(frozen)
