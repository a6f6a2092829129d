"""RoIAlign (average pooling) on torchvision's kernels, which compute mmcv's: the same bins,
sampling points (``sampling_ratio`` 0: ceil(bin size) per bin) and ``aligned`` half-pixel shift.
mmcv's max pooling mode has no torchvision kernel."""

import torch

from .errors import KernelInputError
from .missing import missing_kernel
from .recompute import full_precision

AVERAGE = 1  # mmcv's pool_mode: 0 max, 1 average


def check_rois(rois, batch_size, aligned):
    """Refuse, in one device sync, RoIs that the kernels would read outside the feature maps with
    (a batch index that is not an integer in [0, batch size)), that make torchvision's CPU kernel
    fail without a word (coordinates that are not finite) or that mmcv's CPU kernel refuses (with
    ``aligned``, a box whose x2 < x1 or y2 < y1: mmcv/ops/csrc/pytorch/cpu/roi_align.cpp)."""
    if rois.dim() != 2 or rois.size(1) != 5:
        raise KernelInputError(
            f'roi_align: rois {tuple(rois.shape)} must be (K, 5) rows (batch index, x1, y1, x2, y2)'
        )
    index, boxes = rois[:, 0], rois[:, 1:]
    bad_index = (index < 0) | (index >= batch_size) | (index != index.trunc())
    bad_box = ~boxes.isfinite().all(1)
    if aligned:
        bad_box |= ~((boxes[:, 2] >= boxes[:, 0]) & (boxes[:, 3] >= boxes[:, 1]))
    bad = bad_index | bad_box
    if not bad.any():
        return
    row = int(bad.nonzero()[0])
    if bad_index[row]:
        raise KernelInputError(
            f'roi_align: rois[{row}] has batch index {rois[row, 0].item()}, but the feature maps '
            f'hold {batch_size} images: the first column of rois is the index of the image '
            f'each box is in, an integer in [0, {batch_size - 1}] (mmdet builds rois with '
            'bbox2roi)'
        )
    raise KernelInputError(
        f'roi_align: box rois[{row}] = {rois[row].tolist()} is not (batch index, x1, y1, x2, '
        'y2) with finite x1 <= x2 and y1 <= y2' + (' (aligned=True)' if aligned else '') + ': '
        'pass boxes as corners (x1, y1, x2, y2), not (x, y, w, h), and drop inverted or non-finite '
        'boxes before pooling'
    )


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
    check_rois(rois, input.size(0), aligned)  # the backward gets the same rois
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
