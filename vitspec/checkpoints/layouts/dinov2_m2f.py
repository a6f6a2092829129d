"""DINOv2's released ADE20K segmentor (``dinov2_vitg14_ade20k_m2f.pth``: ViT-g/14 + ViT-Adapter +
Mask2Former) and ViT-Adapter's own checkpoints, mapped to our ViTAdapter and mmseg's
``Mask2FormerHead``.

Both are mmseg 0.x segmentors (``{'meta', 'state_dict'}``) of the same code: DINOv2's
dinov2/eval/segmentation_m2f is czczup/ViT-Adapter's segmentation code with DINOv2's ViT.

- ``decode_head.*``: mmdet 2.x's Mask2FormerHead (segmentation_m2f/models/decode_heads/
  mask2former_head.py, plugins/msdeformattn_pixel_decoder.py) on mmcv 1.x transformer layers,
  whose parts are lists in operation order: the pixel decoder's encoder layers hold
  ``attentions.0`` (deformable self-attention), ``ffns.0`` and ``norms.0 / 1``; the decoder layers
  (operation order cross_attn, norm, self_attn, norm, ffn, norm) ``attentions.0`` (cross),
  ``attentions.1`` (self), ``ffns.0`` and ``norms.0 / 1 / 2``. mmdet 3.x names them ``self_attn`` /
  ``cross_attn`` / ``ffn``; norms, convs, embeddings and the prediction layers keep their names.
- ``backbone.*``: ViTAdapter(TIMMVisionTransformer) (models/backbones/vit_adapter.py, vit.py):
  the ViT's tensors at the top (``cls_token``, ``pos_embed``, ``patch_embed.proj``, ``blocks.N``
  with LayerScale as ``gamma1`` / ``gamma2`` and, for ViT-g, the SwiGLU MLP as ``w1`` (gate),
  ``w2``, ``w3``), beside the adapter's modules under the names our ViTAdapter keeps
  (``level_embed``, ``spm``, ``interactions.N.{injector, extractor, extra_extractors}``, ``up``,
  ``norm1-4``). Ours holds the ViT under ``vit.``. The final norm is commented out in that
  ViT: the file has none.
"""

import re

import torch

from vitspec.errors import CheckpointError

from .rename import rename_keys

BACKBONE_PREFIX = 'backbone.'

_ENCODER = r'^pixel_decoder\.encoder\.layers\.(\d+)\.'
_DECODER = r'^transformer_decoder\.layers\.(\d+)\.'
_SAME = r'^(pixel_decoder\.(input_convs|lateral_convs|output_convs|mask_feature|level_encoding)'
_SAME += r'|transformer_decoder\.post_norm|decoder_input_projs|query_embed|query_feat'
_SAME += r'|level_embed|cls_embed|mask_embed)\.'

HEAD_RULES = [
    (_ENCODER + r'attentions\.0\.', r'pixel_decoder.encoder.layers.\1.self_attn.'),
    (_ENCODER + r'ffns\.0\.', r'pixel_decoder.encoder.layers.\1.ffn.'),
    (_ENCODER + r'norms\.([01])\.', r'pixel_decoder.encoder.layers.\1.norms.\2.'),
    (_DECODER + r'attentions\.0\.', r'transformer_decoder.layers.\1.cross_attn.'),
    (_DECODER + r'attentions\.1\.', r'transformer_decoder.layers.\1.self_attn.'),
    (_DECODER + r'ffns\.0\.', r'transformer_decoder.layers.\1.ffn.'),
    (_DECODER + r'norms\.([012])\.', r'transformer_decoder.layers.\1.norms.\2.'),
    (_SAME, r'\1.'),
]

# the adapter's own modules: the names of our ViTAdapter
ADAPTER_PARTS = re.compile(
    r'^(level_embed$|spm\.|up\.|norm[1-4]\.'
    r'|interactions\.\d+\.(injector|extractor|extra_extractors\.\d+)\.)'
)
VIT_RULES = [
    (r'^(cls_token|pos_embed)$', r'vit.\1'),
    (r'^patch_embed\.proj\.', 'vit.patch_embed.proj.'),
    (r'^blocks\.(\d+)\.gamma1$', r'vit.blocks.\1.ls1.gamma'),
    (r'^blocks\.(\d+)\.gamma2$', r'vit.blocks.\1.ls2.gamma'),
    (r'^blocks\.(\d+)\.mlp\.w3\.', r'vit.blocks.\1.mlp.fc2.'),
    (r'^blocks\.(\d+)\.(norm[12]|attn\.qkv|attn\.proj|mlp\.fc[12])\.', r'vit.blocks.\1.\2.'),
]
SWIGLU = re.compile(r'^blocks\.(\d+)\.mlp\.w1\.(weight|bias)$')


def from_dinov2_m2f_head(sd: dict) -> dict:
    """mmdet 2.x's Mask2FormerHead (DINOv2 / ViT-Adapter; keys without ``decode_head.``) ->
    mmseg's (mmdet 3.x)."""
    return rename_keys(sd, HEAD_RULES, "DINOv2's (ViT-Adapter's) Mask2Former head")


def from_dinov2_adapter(sd: dict) -> dict:
    """ViT-Adapter's backbone (DINOv2's segmentation_m2f or ViT-Adapter's own; keys without
    ``backbone.``) -> our ViTAdapter's whole state: the ViT under ``vit.`` in SpecViT's names,
    the adapter's modules as they are. CheckpointError naming keys of no known part (e.g. a
    BEiT adapter's relative position tables)."""
    sd = dict(sd)
    out = {}
    for key in [k for k in sd if SWIGLU.match(k)]:  # SwiGLU: gate w1 and value w2 -> packed fc1
        block, kind = SWIGLU.match(key).groups()
        value_key = f'blocks.{block}.mlp.w2.{kind}'
        if value_key not in sd:
            raise CheckpointError(f'{key} without {value_key}: not a SwiGLU MLP of DINOv2')
        out[f'vit.blocks.{block}.mlp.fc1.{kind}'] = torch.cat([sd.pop(key), sd.pop(value_key)])
    adapter = {k: sd.pop(k) for k in [k for k in sd if ADAPTER_PARTS.match(k)]}
    out.update(rename_keys(sd, VIT_RULES, "ViT-Adapter's ViT"))
    return {**out, **adapter}


def is_adapter_backbone(sd: dict) -> bool:
    """Whether the ``backbone.*`` tensors of a segmentor file hold a ViT-Adapter (its spatial
    prior and interactions), not a plain ViT."""
    return any(
        k.startswith(BACKBONE_PREFIX) and ADAPTER_PARTS.match(k[len(BACKBONE_PREFIX) :]) for k in sd
    )
