"""A trained model as an ONNX file: SpecViT alone, or a segmentation or depth model end to end
(normalize, pad, encode, decode, resize to the input size), checked against PyTorch through
onnxruntime (docs/export.md)."""

from .graphs import BackboneGraph, DepthGraph, SegmentationGraph, graph_for
from .limits import ShapeLimits, shape_limits
from .model_export import Exported, Parity, check_parity, export_model
from .onnx_file import export_onnx
from .runtime import OnnxModel, label_agreement, max_abs_difference

__all__ = [
    'Exported',
    'Parity',
    'check_parity',
    'export_model',
    'BackboneGraph',
    'DepthGraph',
    'OnnxModel',
    'SegmentationGraph',
    'ShapeLimits',
    'export_onnx',
    'graph_for',
    'label_agreement',
    'max_abs_difference',
    'shape_limits',
]
