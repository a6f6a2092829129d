"""The released heads (and the adapters beside them) ``convert_head_state_dict`` knows, by
source format and our head's type.

DINOv2 released its trained probes as mmseg 0.x segmentors / depthers: mapped in
mmseg0_heads.py. DINOv3 released its ADE20K segmentor (ViT-7B + adapter + Mask2Former) as a
FeatureDecoder state dict without the frozen ViT: the head and the trained adapter, mapped in
dinov3_m2f.py. DINOv2's ADE20K segmentor (ViT-g/14 + ViT-Adapter + Mask2Former) is an mmseg 0.x
segmentor of ViT-Adapter's code, its ViT inside the adapter: mapped in dinov2_m2f.py, which
ViT-Adapter's own (ViT-based) checkpoints convert with too.
"""

from vitspec.errors import CheckpointError

from .dinov2_m2f import (
    BACKBONE_PREFIX,
    from_dinov2_adapter,
    from_dinov2_m2f_head,
    is_adapter_backbone,
)
from .dinov3_m2f import (
    ADAPTER_PREFIX,
    FROZEN_VIT_PREFIX,
    from_dinov3_adapter,
    from_dinov3_m2f_head,
    with_own_vit,
)
from .mmseg0_heads import (
    HEAD_PREFIX,
    from_dinov2_bnhead,
    from_dinov2_dpt,
    from_dinov2_linear_depth,
    split_head,
)

# (source format, our head's type) -> converter of the head's own keys (no ``decode_head.``)
HEAD_FORMATS = {
    ('dinov2', 'LinearBNHead'): from_dinov2_bnhead,
    ('dinov2', 'LinearDepthHead'): from_dinov2_linear_depth,
    ('dinov2', 'DPTDepthHead'): from_dinov2_dpt,
    ('dinov2', 'Mask2FormerHead'): from_dinov2_m2f_head,  # DINOv2's (ViT-Adapter's) segmentor
    ('dinov3', 'Mask2FormerHead'): from_dinov3_m2f_head,  # DINOv3's ADE20K segmentor (7B + M2F)
}
# where each format keeps its head: mmseg 0.x segmentors (DINOv2), DINOv3's FeatureDecoder
HEAD_PREFIXES = {'dinov2': HEAD_PREFIX, 'dinov3': 'segmentation_model.1.'}
# (source format, our backbone's type) -> converter of the trained adapter a released file
# holds beside its head (the frozen ViT itself is not in it: the config's backbone checkpoint)
ADAPTER_FORMATS = {
    ('dinov2', 'ViTAdapter'): from_dinov2_adapter,
    ('dinov3', 'ViTAdapter'): from_dinov3_adapter,
}
# formats whose released file holds the ViT inside its adapter (DINOv3's leaves it out)
ADAPTER_WITH_VIT = ('dinov2',)


def convert_head_state_dict(sd: dict, fmt: str, head_type: str) -> tuple:
    """(the head's weights in ``head_type``'s names, the source keys outside the head)."""
    converter = HEAD_FORMATS.get((fmt, head_type))
    if converter is None:
        known = ', '.join(f'{f} -> {t}' for f, t in HEAD_FORMATS)
        raise CheckpointError(f'no converter of {fmt} heads into {head_type}; known: {known}')
    head, others = split_head(sd, HEAD_PREFIXES.get(fmt, HEAD_PREFIX))
    if not head:
        raise CheckpointError('the released head file holds no tensors')
    return converter(head), others


def adapter_tensors(sd: dict, fmt: str = 'dinov3') -> dict:
    """The trained adapter of a segmentor file, without its prefix (none: {}): DINOv3's
    ``segmentation_model.0.*`` but its frozen ViT; DINOv2's (ViT-Adapter's) ``backbone.*``
    when it is an adapter (a probe's file with a plain ViT backbone has none)."""
    if fmt in ADAPTER_WITH_VIT:
        if not is_adapter_backbone(sd):
            return {}
        start = len(BACKBONE_PREFIX)
        return {k[start:]: v for k, v in sd.items() if k.startswith(BACKBONE_PREFIX)}
    return {
        k[len(ADAPTER_PREFIX) :]: v
        for k, v in sd.items()
        if k.startswith(ADAPTER_PREFIX) and not k.startswith(FROZEN_VIT_PREFIX)
    }


def convert_adapter_state_dict(sd: dict, fmt: str, backbone_type: str, backbone_state: dict):
    """The whole state of our adapter backbone: its ViT's tensors from the file where it holds
    them (DINOv2), else from ``backbone_state``, and the released adapter's, converted; None
    when the file holds no adapter. CheckpointError when it
    does and ``backbone_type`` has no converter (a plain ViT cannot take a trained adapter)."""
    adapter = adapter_tensors(sd, fmt)
    if not adapter:
        return None
    converter = ADAPTER_FORMATS.get((fmt, backbone_type))
    if converter is None:
        known = ', '.join(f'{f} -> {t}' for f, t in ADAPTER_FORMATS)
        raise CheckpointError(
            f'the released file holds a trained adapter ({len(adapter)} tensors) that a '
            f'{backbone_type} backbone has no place for; known: {known}'
        )
    if fmt in ADAPTER_WITH_VIT:  # the file's ViT, as the segmentor was evaluated; its ViT has
        # no final norm (commented out in segmentation_m2f's vit.py): SpecViT's, unused with
        # final_norm=False, stays the backbone checkpoint's
        norm = {k: v for k, v in backbone_state.items() if k.startswith('vit.norm.')}
        return {**norm, **converter(adapter)}
    return with_own_vit(backbone_state, converter(adapter))
