"""tue-mps/eomt's released checkpoints (Hugging Face ``pytorch_model.bin`` per config), mapped to
EoMTNetwork's names.

The files are the state dict of their Lightning module (training/lightning_module.py loads them
with ``load_state_dict`` after dropping ``criterion.empty_weight``; ``on_save_checkpoint``
removes torch.compile's ``._orig_mod``). Read in models/eomt.py and models/vit.py, the network is
``network.*``:

- ``encoder.backbone.*``: a timm VisionTransformer (DINOv2 configs: ``vit_*_reg4_dinov2`` built
  at the config's img_size and patch 16, so ``pos_embed`` covers the patch grid only and
  registers carry none), timm's names = SpecViT's; ``encoder.pixel_mean`` / ``pixel_std``
  (ImageNet's) are dropped: normalization is the data preprocessor's.
- ``q.weight``: the query embedding (``nn.Embedding(num_q, dim)``) -> ``query_embed.weight``.
- ``class_head``, ``mask_head`` (Sequential: 0, 2, 4), ``upscale`` (ScaleBlocks: conv1, conv2,
  norm) -> ``head.*``, the same names below.
- ``attn_mask_probs``: the annealing state, length num_blocks.

Upstream's query tokens share every block part with the other tokens: its ``blocks.N.norm1``,
``attn.qkv`` and ``ls1`` are the shared parameters of EoMTNetwork's query blocks, and with
``query_specialize`` their query rows (``blocks.N.norm1.query_weight``, ``attn.qkv.query_bias``,
``ls1.query_gamma``, ...) start as those (the backbone's filter fills them). EoMTNetwork once
held the query rows in sibling modules (``blocks.N.query_norm1.weight``, ``attn.query_qkv``,
``query_ls1.gamma``); `renamed_query_copies` maps those names.
The DINOv3 configs use a Hugging Face transformers backbone with other names: not converted here.
"""

import re

from vitspec.errors import CheckpointError

from ..architecture import infer_backbone_cfg
from .rename import KEEP, rename_keys

NETWORK = 'network.'
BACKBONE = 'encoder.backbone.'
# the Lightning module's keys outside the network that mean nothing to it
DROPPED = re.compile(r'^(criterion\.empty_weight|network\.encoder\.pixel_(mean|std))$')
RULES = (
    (rf'^{re.escape(BACKBONE)}', 'backbone.'),
    (r'^q\.weight$', 'query_embed.weight'),
    (r'^(class_head|mask_head|upscale)\.', r'head.\1.'),
    KEEP,
)


# EoMTNetwork's former query-copy names -> the query rows of the specialized layers
_FORMER_QUERY_COPY = re.compile(r'(^|\.)query_(norm1|norm2|ls1|ls2|qkv)\.(weight|bias|gamma)$')


def renamed_query_copies(sd: dict) -> dict:
    """``sd`` with former query-copy keys renamed (``blocks.9.query_norm1.weight`` ->
    ``blocks.9.norm1.query_weight``, ``blocks.9.attn.query_qkv.bias`` ->
    ``blocks.9.attn.qkv.query_bias``); ``sd`` itself where it has none."""
    if not any(_FORMER_QUERY_COPY.search(k) for k in sd):
        return sd
    return rename_keys(sd, [(_FORMER_QUERY_COPY.pattern, r'\1\2.query_\3'), KEEP], 'EoMT')


def eomt_state_dict(checkpoint) -> dict:
    """The tensor dict of a released file (``state_dict`` entry or the dict itself), free of
    ``._orig_mod``."""
    sd = checkpoint.get('state_dict', checkpoint) if isinstance(checkpoint, dict) else None
    if not isinstance(sd, dict) or not any(k.startswith(NETWORK) for k in sd):
        raise CheckpointError('not an EoMT checkpoint: no network.* keys (tue-mps/eomt layout)')
    return {k.replace('._orig_mod', ''): v for k, v in sd.items()}


def from_eomt(sd: dict) -> dict:
    """A released state dict -> EoMTNetwork's state dict (backbone in SpecViT's timm names)."""
    kept = {}
    unknown = []
    for key, value in sd.items():
        if DROPPED.match(key):
            continue
        if not key.startswith(NETWORK):
            unknown.append(key)
            continue
        name = key[len(NETWORK) :]
        if name.startswith('encoder.') and not name.startswith(BACKBONE):
            unknown.append(key)
            continue
        kept[name] = value
    if unknown:
        raise CheckpointError(f'keys outside the EoMT network layout: {", ".join(unknown)}')
    out = rename_keys(kept, RULES, 'EoMT network')
    if 'backbone.blocks.0.attention.q_proj.weight' in out or any(
        '.layer.' in k for k in out if k.startswith('backbone.')
    ):
        raise CheckpointError('a transformers (DINOv3) EoMT backbone: not converted yet')
    return out


def eomt_network_cfg(sd: dict) -> dict:
    """EoMTNetwork's arguments read off a converted state dict."""
    for key in ('query_embed.weight', 'head.class_head.weight', 'attn_mask_probs'):
        if key not in sd:
            raise CheckpointError(f'not an EoMT network state dict: no {key!r}')
    return dict(
        num_classes=sd['head.class_head.weight'].shape[0] - 1,
        num_queries=sd['query_embed.weight'].shape[0],
        num_blocks=sd['attn_mask_probs'].shape[0],
    )


def split_backbone(sd: dict) -> tuple:
    """(the backbone's tensors without ``backbone.``, the rest)."""
    inner = {k[len('backbone.') :]: v for k, v in sd.items() if k.startswith('backbone.')}
    return inner, {k: v for k, v in sd.items() if not k.startswith('backbone.')}


def convert_eomt_checkpoint(checkpoint, num_heads: int = None) -> tuple:
    """(EoMTNetwork state dict, SpecViT kwargs of its backbone, EoMTNetwork kwargs)."""
    sd = from_eomt(eomt_state_dict(checkpoint))
    backbone, _ = split_backbone(sd)
    return sd, infer_backbone_cfg(backbone, 'timm', num_heads), eomt_network_cfg(sd)
