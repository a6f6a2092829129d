"""Which of a SpecViT's techniques export, and with which shapes.

Measured on torch 2.14.1 with its dynamo exporter (onnxscript 0.7) and onnxruntime 1.32 (see
docs/export.md for the per-technique parity):
- Token Graying 'svd' takes an SVD of every image's token matrix: ONNX has no SVD operator, so
  no exporter can write it. Refused.
- rel_pos_bias='table' (BEiT / MAE) holds one bias per pair of cells of the patch grid it was
  made for: the image size is fixed to that grid (batch stays dynamic).
- windowed attention (ViTDet): with a symbolic image size the exporter's decomposition fails on
  a reshape of the windows' output ("Cannot view a tensor ... with strides"); with a fixed
  image size it exports, batch dynamic.
- pos_embed_interp='dinov2' (by the scale factor (new + 0.1) / old): the exporter would bake
  the traced scale factor into the graph; it is exported by resize matrices computed in the
  graph instead (dinov2_resampling.py), with a dynamic size.
Everything else (LayerScale, registers, RoPE, Token Graying 'dct', CLS specialization and its
LoRA form, class attention, talking heads, layer-wise scaling, SwiGLU, decomposed relative
position in global blocks, skip ablations) exports with dynamic batch and image size.
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


def refuse_unsupported(model: nn.Module) -> None:
    """Raise ConfigError for a part no ONNX graph can hold."""
    for name, module in model.named_modules():
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
        if getattr(module, 'window_size', 0) and hasattr(module, 'qkv'):
            return ShapeLimits(
                False,
                f'{name}: windowed attention fails to export with a symbolic image size '
                "(torch 2.14's exporter cannot reshape the windows' output), so the image "
                'size is fixed',
            )
    return ShapeLimits(True, '')
