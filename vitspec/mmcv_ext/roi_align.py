"""RoIAlign (average pooling) on torchvision's kernels, which compute mmcv's: the same bins,
sampling points (``sampling_ratio`` 0: ceil(bin size) per bin) and ``aligned`` half-pixel shift.
mmcv's max pooling mode has no torchvision kernel."""

import torch

from .missing import missing_kernel
from .recompute import full_precision

AVERAGE = 1  # mmcv's pool_mode: 0 max, 1 average


def roi_align_forward(
    input,
    rois,
    output,
    argmax_y,
    argmax_x,
    aligned_height,
    aligned_width,
    spatial_scale,
    sampling_ratio,
    pool_mode,
    aligned,
):
    if pool_mode != AVERAGE:
        missing_kernel('roi_align_forward', "pool_mode='max'")()
    with torch.autocast(input.device.type, enabled=False):
        pooled = torch.ops.torchvision.roi_align(
            full_precision(input),
            full_precision(rois).to(full_precision(input).dtype),
            spatial_scale,
            aligned_height,
            aligned_width,
            sampling_ratio,
            aligned,
        )
    output.copy_(pooled)


def roi_align_backward(
    grad_output,
    rois,
    argmax_y,
    argmax_x,
    grad_input,
    aligned_height,
    aligned_width,
    spatial_scale,
    sampling_ratio,
    pool_mode,
    aligned,
):
    if pool_mode != AVERAGE:
        missing_kernel('roi_align_backward', "pool_mode='max'")()
    grad = full_precision(grad_output)
    with torch.autocast(grad.device.type, enabled=False):
        grad_input.add_(
            torch.ops.torchvision._roi_align_backward(
                grad,
                rois.to(grad.dtype),
                spatial_scale,
                aligned_height,
                aligned_width,
                *grad_input.shape,
                sampling_ratio,
                aligned,
            ).to(grad_input.dtype)
        )
