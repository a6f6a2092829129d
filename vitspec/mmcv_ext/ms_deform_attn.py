"""Multi-scale deformable attention (Deformable DETR) through ``grid_sample``: mmcv's own
PyTorch form of the op, which its module already runs on CPU, behind the CUDA kernel's name;
the backward by recomputation."""

import torch

from .recompute import full_precision, write_gradients


def _attention(value, spatial_shapes, level_start_index, sampling_loc, attn_weight):
    # mmcv.ops is importing this module when it loads: take its function at call time
    from mmcv.ops.multi_scale_deform_attn import multi_scale_deformable_attn_pytorch

    shapes = [tuple(shape) for shape in spatial_shapes.tolist()]  # one device sync, not one a level
    return multi_scale_deformable_attn_pytorch(value, shapes, sampling_loc, attn_weight)


def ms_deform_attn_forward(
    value, spatial_shapes, level_start_index, sampling_loc, attn_weight, im2col_step
):
    """(batch, queries, heads * channels) in value's dtype, computed in float32 at least."""
    with torch.autocast(value.device.type, enabled=False):
        out = _attention(
            full_precision(value),
            spatial_shapes,
            level_start_index,
            full_precision(sampling_loc),
            full_precision(attn_weight),
        )
    return out.to(value.dtype)


def ms_deform_attn_backward(
    value,
    spatial_shapes,
    level_start_index,
    sampling_loc,
    attn_weight,
    grad_output,
    grad_value,
    grad_sampling_loc,
    grad_attn_weight,
    im2col_step,
):
    write_gradients(
        _attention,
        (value, spatial_shapes, level_start_index, sampling_loc, attn_weight),
        grad_output,
        (grad_value, None, None, grad_sampling_loc, grad_attn_weight),
    )
