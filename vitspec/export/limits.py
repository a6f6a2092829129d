"""Which of a SpecViT's techniques export, and with which shapes.

Measured on torch 2.14.1 with its dynamo exporter (onnxscript 0.7) and onnxruntime 1.32 (see
docs/export.md for the per-technique parity):
- Token Graying 'svd' takes an SVD of every image's token matrix: ONNX has no SVD operator, so
  no exporter can write it. Refused.
- rel_pos_bias='table' (BEiT / MAE) holds one bias per pair of cells of the patch grid it was
  made for: the image size is fixed to that grid (batch stays dynamic).
- mmcv's MultiScaleDeformableAttention (the ViT-Adapter's injectors and extractors,
  Mask2Former's pixel decoder): torch.export stops at its
  ``assert (spatial_shapes[:, 0] * spatial_shapes[:, 1]).sum() == num_value``
  (mmcv/ops/multi_scale_deform_attn.py), a guard on the values of a tensor
  (GuardOnDataDependentSymNode), with a fixed image size as with a dynamic one; tried on the demo
  ViT-Adapter + Mask2Former. Refused.
- EoMT exports end to end (its queries ride in the last blocks of the SpecViT; the mask module
  and the per-pixel class scores are plain tensor ops), dynamic batch and size.
- windowed attention (ViTDet) and the decomposed relative position bias: export with a dynamic
  size. The bias's lookup (``rel_pos_lookup``) stretches an axis by a symbolic float that the
  ONNX translation cannot multiply by, and resamples its table only at sizes other than the
  table's own (a guard); while exporting it takes an integer form instead
  (vitspec/layers/rel_pos.py, ``rel_pos_lookup_same_axis``).
- pos_embed_interp='dinov2' (by the scale factor (new + 0.1) / old): the exporter would bake
  the traced scale factor into the graph; it is exported by resize matrices computed in the
  graph instead (vitspec/layers/dinov2_resize.py, taken while exporting), with a dynamic size.
Everything else (LayerScale, registers, RoPE, Token Graying 'dct', CLS specialization and its
LoRA form, class attention, talking heads, layer-wise scaling, SwiGLU, skip ablations) exports
with dynamic batch and image size.
"""

from typing import NamedTuple

from torch import nn

from vitspec.errors import ConfigError
from vitspec.layers.token_graying import TokenGraying

# A part that cannot export raises vitspec.errors.ConfigError (the model's config chose it),
# naming the part and why.


class ShapeLimits(NamedTuple):
    dynamic_size: bool  # image height and width may vary in the exported graph
    reason: str  # why not, when they may not ('' otherwise)


DEFORMABLE_ATTENTION_BLOCKED = (
    "mmcv's MultiScaleDeformableAttention (the ViT-Adapter's injectors and extractors, "
    "Mask2Former's pixel decoder) does not export: torch.export stops at its "
    '`assert (spatial_shapes[:, 0] * spatial_shapes[:, 1]).sum() == num_value` '
    '(mmcv/ops/multi_scale_deform_attn.py), a branch on the values of a tensor '
    '(GuardOnDataDependentSymNode), with a fixed image size too; its CUDA kernel has no ONNX '
    "operator either (only mmdeploy's custom TensorRT op). Tried on the demo ViT-Adapter + "
    "Mask2Former; exporting it means rewriting the attention with the levels' sizes as Python "
    'ints and grid_sample, as mmdeploy does'
)


def refuse_unsupported(model: nn.Module) -> None:
    """Raise ConfigError for a part no ONNX graph can hold."""
    try:
        from mmcv.ops import MultiScaleDeformableAttention
    except ImportError:  # without mmcv's ops no model holds one
        MultiScaleDeformableAttention = ()

    for name, module in model.named_modules():
        if isinstance(module, MultiScaleDeformableAttention):
            raise ConfigError(f'{name}: {DEFORMABLE_ATTENTION_BLOCKED}')
        if isinstance(module, TokenGraying) and module.mode == 'svd':
            raise ConfigError(
                f"{name}: Token Graying mode='svd' takes a singular value decomposition of each "
                "image's token matrix, and ONNX has no SVD operator (torch.linalg.svd has no "
                "ONNX form in either exporter); a model trained with mode='dct' exports"
            )


def shape_limits(model: nn.Module) -> ShapeLimits:
    """Whether the image size may be dynamic in the export of ``model`` (any module tree that
    contains SpecViT attention layers), after `refuse_unsupported`."""
    refuse_unsupported(model)
    for name, module in model.named_modules():
        if getattr(module, 'rel_pos_bias', None) == 'table':
            return ShapeLimits(
                False,
                f"{name}: rel_pos_bias='table' holds a bias for each pair of cells of the "
                f'{module.rel_pos_size} patch grid it was made for, so the image size is fixed',
            )
    return ShapeLimits(True, '')
