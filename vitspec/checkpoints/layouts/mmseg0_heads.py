"""DINOv2's released probes: mmseg 0.x segmentor / depther state dicts, their heads mapped to
ours.

DINOv2 released its trained probes as mmseg 0.x state dicts of a segmentor / depther
(``{'meta', 'state_dict': {'decode_head.*'}}``; hub/depthers.py reads ``checkpoint['state_dict']``).
Their layouts, read from facebookresearch/dinov2:

- segmentation BNHead (eval/segmentation/models/decode_heads/linear_head.py): ``bn`` (SyncBN over
  the concatenated taps) and mmseg's ``conv_seg``: LinearBNHead's own names.
- depth BNHead (eval/depth/models/decode_heads/linear_head.py): ``conv_depth``, a 1x1 conv (its
  ``bn`` is commented out): LinearDepthHead's own names.
- depth DPTHead (eval/depth/models/decode_heads/dpt_head.py): ``reassemble_blocks``, mmcv
  ConvModules (``.conv.``), ``fusion_blocks`` numbered from the coarsest level (ours from the
  finest) and the output convs under ``conv_depth.head``.
"""

import re

from .rename import KEEP, rename_keys

HEAD_PREFIX = 'decode_head.'

_FUSION = r'^(fusions\.\d+)\.'
DPT_RULES = [
    (r'^reassemble_blocks\.projects\.(\d+)\.conv\.', r'projects.\1.'),
    (r'^reassemble_blocks\.resize_layers\.', 'resizes.'),
    (r'^reassemble_blocks\.readout_projects\.', 'readouts.'),
    (r'^convs\.(\d+)\.conv\.', r'to_channels.\1.'),
    (_FUSION + r'res_conv_unit1\.(conv[12])\.conv\.', r'\1.skip_unit.\2.'),
    (_FUSION + r'res_conv_unit2\.(conv[12])\.conv\.', r'\1.unit.\2.'),
    (_FUSION + r'res_conv_unit1\.', r'\1.skip_unit.'),
    (_FUSION + r'res_conv_unit2\.', r'\1.unit.'),
    (_FUSION + r'project\.conv\.', r'\1.project.'),
    (r'^project\.conv\.', 'project.0.'),
    (r'^conv_depth\.head\.', 'head.'),
    KEEP,
]


def split_head(sd: dict, prefix: str = HEAD_PREFIX) -> tuple:
    """(the head's tensors without ``prefix``, the keys of everything else). A file without
    any ``prefix`` key is taken to hold the head alone."""
    if not any(k.startswith(prefix) for k in sd):
        return dict(sd), []
    head = {k[len(prefix) :]: v for k, v in sd.items() if k.startswith(prefix)}
    return head, sorted(k for k in sd if not k.startswith(prefix))


def from_dinov2_bnhead(sd: dict) -> dict:
    """DINOv2's segmentation BNHead: ``bn.*`` and ``conv_seg.*``, already our names."""
    return dict(sd)


def from_dinov2_linear_depth(sd: dict) -> dict:
    """DINOv2's depth BNHead: ``conv_depth.*``, already our names."""
    return dict(sd)


def from_dinov2_dpt(sd: dict) -> dict:
    """DINOv2's DPTHead -> DPTDepthHead. Its ``fusion_blocks[0]`` takes the coarsest level (and
    has no ``res_conv_unit1``); our ``fusions[3]`` does: renumbered first, then renamed."""
    fusion_ids = {int(m.group(1)) for k in sd if (m := re.match(r'fusion_blocks\.(\d+)\.', k))}
    last = max(fusion_ids, default=-1)
    renumbered = [(r'^fusion_blocks\.(\d+)\.', lambda m: f'fusions.{last - int(m[1])}.'), KEEP]
    what = "DINOv2's DPT head"
    return rename_keys(rename_keys(sd, renumbered, what), DPT_RULES, what)
