"""Writing a graph module as an ONNX file with torch's dynamo exporter.

Why this exporter (measured on torch 2.14.1, docs/export.md): the TorchScript one
(``dynamo=False``) has no ONNX form for the antialiased bicubic resize that resamples SpecViT's
position embedding to every input (``aten::_upsample_bicubic2d_aa``), nor for the complex
tensors of the FFT DCT; it exported only the RoPE model (no learned table). The dynamo exporter
(torch.export + onnxscript) writes that resize as ONNX Resize (antialias, cubic a = -0.5, as
PyTorch) and keeps the image size symbolic.
"""

import json
import os
from typing import Dict, Optional, Sequence

import torch
from torch import nn

OPSET = 18  # the first with Resize's antialias attribute
PROTOBUF_LIMIT = 2**31 - 1  # a single ONNX file holds at most 2 GB; larger weights go beside it


def example_input(size, batch: int = 2) -> torch.Tensor:
    """A random image batch of ``size`` (h, w), pixel values 0-255, the same on every call. Trace
    a symbolic batch with 2 or more images: torch.export specializes a batch of 1."""
    generator = torch.Generator().manual_seed(0)
    return torch.rand(batch, 3, *size, generator=generator) * 255


def export_onnx(
    graph: nn.Module,
    example: torch.Tensor,
    path: str,
    dynamic_batch: bool = True,
    dynamic_size: bool = True,
    metadata: Optional[Dict[str, object]] = None,
    output_names: Optional[Sequence[str]] = None,
) -> str:
    """Export ``graph`` traced on ``example`` to ``path`` (its input named ``image``), with the
    batch and the image size symbolic as asked; ``metadata`` goes into the file's
    metadata_props (values as JSON). Returns ``path``."""
    axes = {}
    if dynamic_batch:
        axes[0] = torch.export.Dim.AUTO
    if dynamic_size:
        axes[2] = axes[3] = torch.export.Dim.AUTO
    names = output_names or (graph.output_names() if hasattr(graph, 'output_names') else None)
    with torch.no_grad():
        program = torch.onnx.export(
            graph.eval(),
            (example,),
            dynamo=True,
            input_names=['image'],
            output_names=list(names) if names else None,
            dynamic_shapes=(axes,),
            opset_version=OPSET,
            verbose=False,
        )
    for key, value in (metadata or {}).items():
        program.model.metadata_props[key] = json.dumps(value)
    weights = sum(t.numel() * t.element_size() for t in graph.state_dict().values())
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    program.save(path, external_data=weights > PROTOBUF_LIMIT // 2)
    return path
