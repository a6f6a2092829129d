"""Multi-scale deformable attention (Deformable DETR) through ``grid_sample``: mmcv's own
PyTorch form of the op, which its module already runs on CPU, behind the CUDA kernel's name;
the backward by recomputation, the sampling locations' with mmcv's border rule (border.py)."""

import torch

from . import border
from .errors import KernelInputError
from .recompute import full_precision, write_gradients


def _level_shapes(value, spatial_shapes, level_start_index):
    """The levels' (height, width) as ints, read in one device sync, once checked against the
    value's length and the levels' start indices (mmcv's kernel reads them unchecked)."""
    levels = len(spatial_shapes)
    starts_given = level_start_index.reshape(-1).to(spatial_shapes.device)
    read = torch.cat((spatial_shapes.reshape(-1), starts_given)).tolist()
    shapes = [tuple(read[2 * i : 2 * i + 2]) for i in range(levels)]
    sizes = [h * w for h, w in shapes]
    starts = [sum(sizes[:i]) for i in range(levels)]
    given = read[2 * levels :]
    if sum(sizes) != value.size(1) or given != starts:
        raise KernelInputError(
            f'multi-scale deformable attention: value_spatial_shapes {shapes} hold '
            f'{sum(sizes)} keys starting at {starts}, but the value {tuple(value.shape)} has '
            f'{value.size(1)} keys and level_start_index is {given}: pass the (height, width) of '
            'each level whose flattened maps were concatenated into the value, in that order, '
            'and level_start_index = the running sum of height * width from 0'
        )
    return shapes


def _attention(value, spatial_shapes, level_start_index, sampling_loc, attn_weight):
    # mmcv.ops is importing this module when it loads: take its function at call time
    from mmcv.ops.multi_scale_deform_attn import multi_scale_deformable_attn_pytorch

    shapes = _level_shapes(value, spatial_shapes, level_start_index)
    if sampling_loc.requires_grad:
        sampling_loc = border.attention_locations(sampling_loc, spatial_shapes)
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
