"""mmcv's compiled ops that refuse an autocast dtype run in float32 under autocast.

Only for mmcv's compiled build (tools/install.sh --mmcv-ops): the PyTorch / torchvision kernels
that tools/install.sh installs by default (the ``kernels`` package) run float16 / bfloat16 inputs in
float32 themselves, and nothing here is patched then.

mmcv 2.1.0's CPU kernels of NMS and RoIAlign dispatch on float and double alone, so a detector
trained under ``torch.autocast('cpu', bfloat16 / float16)`` fails in the RPN's NMS with
"expected scalar type Float but found BFloat16" (the scores come from convolutions that
autocast ran in low precision). Its CUDA kernel of multi-scale deformable attention (ViT-Adapter,
Mask2Former's pixel decoder) dispatches on float, double and half: bfloat16 autocast on a GPU
fails there alike (DINOv3 runs this op in float32 too). After ``run_mmcv_ops_in_float32()``
these ops cast the inputs their kernel refuses to float32, run with autocast off, and give their
floating outputs back in the dtype of their first floating input, as their kernels for the
accepted dtypes do: mmdet's RoI extractor writes RoIAlign's output into a tensor of the
features' dtype. Backward likewise. Inputs the kernels take run unchanged.
"""

import functools
import importlib
from typing import NamedTuple, Tuple

import torch

from .installed import COMPILED, ops_kernels

LOW_PRECISION = (torch.float16, torch.bfloat16)


class Float32Only(NamedTuple):
    """An mmcv autograd function whose kernel on ``device`` refuses ``dtypes``."""

    module: str
    function: str
    device: str
    dtypes: Tuple[torch.dtype, ...]


# What dense-prediction models call under autocast: the RPN's and the RoI head's NMS
# (batched_nms's 'nms' or 'soft_nms'), RoIAlign (RoI extractors, mask targets), and the
# deformable attention of ViT-Adapter and of mmdet's MSDeformAttnPixelDecoder.
FLOAT32_ONLY_OPS = (
    Float32Only('mmcv.ops.nms', 'NMSop', 'cpu', LOW_PRECISION),
    Float32Only('mmcv.ops.nms', 'SoftNMSop', 'cpu', LOW_PRECISION),
    Float32Only('mmcv.ops.roi_align', 'RoIAlignFunction', 'cpu', LOW_PRECISION),
    Float32Only(
        'mmcv.ops.multi_scale_deform_attn',
        'MultiScaleDeformableAttnFunction',
        'cuda',
        (torch.bfloat16,),
    ),
)
WRAPPED = '_vitspec_float32'


def float32_only_functions() -> list:
    """(autograd function, its Float32Only) of FLOAT32_ONLY_OPS; none without mmcv's compiled
    ops."""
    if ops_kernels() != COMPILED:
        return []
    functions = []
    for op in FLOAT32_ONLY_OPS:
        try:
            functions.append((getattr(importlib.import_module(op.module), op.function), op))
        except (ImportError, AttributeError):
            pass
    return functions


def _cast_floating(value, dtype):
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.to(dtype)
    if isinstance(value, tuple):
        return tuple(_cast_floating(v, dtype) for v in value)
    return value


def in_float32(method, device: str, dtypes):
    """``method(ctx, *args)`` of an autograd function, run on float32 copies of its ``device``
    tensors of ``dtypes``; floating results in the dtype of its first floating tensor."""

    def refused(value) -> bool:
        return (
            isinstance(value, torch.Tensor)
            and value.device.type == device
            and value.dtype in dtypes
        )

    @functools.wraps(method)
    def run(ctx, *args):
        if not any(refused(a) for a in args):
            return method(ctx, *args)
        dtype = next(a.dtype for a in args if isinstance(a, torch.Tensor) and a.is_floating_point())
        with torch.autocast(device, enabled=False):
            out = method(ctx, *(a.float() if refused(a) else a for a in args))
        return _cast_floating(out, dtype)

    return run


def run_mmcv_ops_in_float32() -> None:
    """From now on, the ops of FLOAT32_ONLY_OPS run the inputs their kernels refuse in float32
    (forward and backward); other inputs as before. Not undone: backward runs after the
    autocast region, and the change only touches inputs the kernels refuse."""
    for function, op in float32_only_functions():
        for name in ('forward', 'backward'):
            if name not in function.__dict__:  # NMS has no backward
                continue
            method = getattr(function, name)
            if not getattr(method, WRAPPED, False):
                wrapped = in_float32(method, op.device, op.dtypes)
                setattr(wrapped, WRAPPED, True)
                setattr(function, name, staticmethod(wrapped))
