"""mmcv's compiled CPU ops take float32 only; under CPU autocast they run in float32.

mmcv 2.1.0's CPU kernels of NMS and RoIAlign dispatch on float and double alone, so a detector
trained under ``torch.autocast('cpu', bfloat16 / float16)`` fails in the RPN's NMS with
"expected scalar type Float but found BFloat16" (the scores come from convolutions that
autocast ran in low precision). After ``run_mmcv_cpu_ops_in_float32()`` these ops cast their
bfloat16 / float16 CPU inputs to float32, run with autocast off, and give their floating outputs
back in the dtype of their first floating input, as their CUDA kernels, which take half
precision, do: mmdet's RoI extractor writes RoIAlign's output into a tensor of the features'
dtype. Backward likewise. Ops on float32 or CUDA tensors run unchanged.
"""

import functools
import importlib

import torch

# The autograd functions of mmcv's CPU kernels that detectors call under autocast: the RPN's
# and the RoI head's NMS (batched_nms's 'nms' or 'soft_nms') and RoIAlign (RoI extractors,
# mask targets).
FLOAT32_ONLY_OPS = (
    ('mmcv.ops.nms', 'NMSop'),
    ('mmcv.ops.nms', 'SoftNMSop'),
    ('mmcv.ops.roi_align', 'RoIAlignFunction'),
)
LOW_PRECISION = (torch.float16, torch.bfloat16)
WRAPPED = '_vitspec_float32_on_cpu'


def float32_only_functions() -> list:
    """The classes of FLOAT32_ONLY_OPS; none with mmcv-lite, which has no compiled ops."""
    functions = []
    for module_name, name in FLOAT32_ONLY_OPS:
        try:
            functions.append(getattr(importlib.import_module(module_name), name))
        except (ImportError, AttributeError):
            pass
    return functions


def _low_precision_cpu(value) -> bool:
    return (
        isinstance(value, torch.Tensor)
        and value.device.type == 'cpu'
        and value.dtype in LOW_PRECISION
    )


def _cast_floating(value, dtype):
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.to(dtype)
    if isinstance(value, tuple):
        return tuple(_cast_floating(v, dtype) for v in value)
    return value


def in_float32_on_cpu(method):
    """``method(ctx, *args)`` of an autograd function, run on float32 copies of its bfloat16 /
    float16 CPU tensors; floating results in the dtype of its first floating tensor."""

    @functools.wraps(method)
    def run(ctx, *args):
        if not any(_low_precision_cpu(a) for a in args):
            return method(ctx, *args)
        dtype = next(a.dtype for a in args if isinstance(a, torch.Tensor) and a.is_floating_point())
        with torch.autocast('cpu', enabled=False):
            out = method(ctx, *(a.float() if _low_precision_cpu(a) else a for a in args))
        return _cast_floating(out, dtype)

    return run


def run_mmcv_cpu_ops_in_float32() -> None:
    """From now on, the ops of FLOAT32_ONLY_OPS run their bfloat16 / float16 CPU inputs in
    float32 (forward and backward); float32 and CUDA inputs as before. Not undone: backward runs
    after the autocast region, and the change only touches inputs the kernels refuse."""
    for function in float32_only_functions():
        for name in ('forward', 'backward'):
            if name not in function.__dict__:  # NMS has no backward
                continue
            method = getattr(function, name)
            if not getattr(method, WRAPPED, False):
                wrapped = in_float32_on_cpu(method)
                setattr(wrapped, WRAPPED, True)
                setattr(function, name, staticmethod(wrapped))
