"""Cross-entropy of class logits bilinearly resized to the label size, a band of rows at a time.

mmseg's decode heads resize their logits (B, C, h, w) to the label size (B, C, H, W) and take
the cross-entropy there: 150 classes at 512 x 512 and batch 2 are 315 MB of float32, written
once by the resize and again by the softmax, its gradient and the resize's backward. Here the
logits are resized along W once at low height, (B, C, h, W); then for each band of output rows
the resize along H, the loss, the argmax and the gradient with respect to the (B, C, h, W)
logits are computed, and the band is dropped; that gradient, mapped back along W, is the one
tensor kept for the backward pass, at the logits' size. The resize is PyTorch's bilinear one
(its weights: `row_resize.interpolation_matrix`) as two matrix products, so the loss equals
mmseg's up to float rounding; it is computed in float32 whatever the logits' dtype.
"""

from typing import NamedTuple, Optional

import torch
from torch import Tensor

from ..segmentors.row_resize import DEFAULT_CHUNK_BYTES, interpolation_matrix, row_bands

# float32 band logits: on a CPU about its caches' size (measured: docs/benchmarks.md, probe
# grids); elsewhere the row resize's bound, fewer kernel launches (not measured on a GPU)
CPU_BAND_BYTES = 32 * 2**20


class UpsampledCrossEntropy(NamedTuple):
    loss: Tensor  # scalar float32, differentiable w.r.t. the logits
    correct: Tensor  # int64 count of the non-ignored pixels whose argmax is their label
    counted: Tensor  # int64 count of the non-ignored pixels


def upsampled_cross_entropy(
    logits: Tensor,
    labels: Tensor,
    ignore_index: int = 255,
    align_corners: bool = False,
    avg_non_ignore: bool = False,
    band_bytes: Optional[int] = None,
) -> UpsampledCrossEntropy:
    """The cross-entropy of ``logits`` (B, C, h, w) bilinearly resized to the size of
    ``labels`` (B, H, W), as mmseg's ``cross_entropy`` reduces it: the sum over the non-ignored
    pixels divided by the number of pixels, or of non-ignored ones with ``avg_non_ignore``
    (plus float32's eps). A label outside [0, C) other than ``ignore_index`` is refused.
    ``band_bytes``: the most bytes of float32 band logits at a time (at least one row)."""
    if logits.dim() != 4 or labels.dim() != 3 or labels.shape[0] != logits.shape[0]:
        raise ValueError(
            f'upsampled_cross_entropy: logits (B, C, h, w) and labels (B, H, W), got '
            f'{tuple(logits.shape)} and {tuple(labels.shape)}'
        )
    valid = labels != ignore_index
    counted = valid.sum()
    bad = valid & ((labels < 0) | (labels >= logits.shape[1]))
    if bad.any():
        raise ValueError(
            f'label values {labels[bad].unique().tolist()} are neither classes '
            f'[0, {logits.shape[1]}) nor ignore_index {ignore_index}'
        )
    divisor = counted if avg_non_ignore else labels.numel()
    if band_bytes is None:
        band_bytes = CPU_BAND_BYTES if logits.device.type == 'cpu' else DEFAULT_CHUNK_BYTES
    with torch.autocast(logits.device.type, enabled=False):  # float32 whatever autocast
        loss, correct = _BandedCrossEntropy.apply(
            logits, labels, valid, float(divisor), align_corners, band_bytes
        )
    return UpsampledCrossEntropy(loss, correct, counted)


class _BandedCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, labels, valid, divisor, align_corners, band_bytes):
        (batch, classes, h, w), (height, width) = logits.shape, labels.shape[1:]
        device = logits.device
        along_h = interpolation_matrix(h, height, align_corners, device)
        along_w = interpolation_matrix(w, width, align_corners, device)
        resized_w = logits.detach().float() @ along_w.t()  # (B, C, h, W)
        grad_resized_w = torch.zeros_like(resized_w)
        total = torch.zeros((), dtype=torch.float64, device=device)
        correct = torch.zeros((), dtype=torch.int64, device=device)
        scale = 1.0 / (divisor + torch.finfo(torch.float32).eps)
        for start, stop in row_bands((height, width), batch * classes, 4, band_bytes):
            rows = along_h[start:stop]  # (r, h)
            band = rows @ resized_w  # (B, C, r, W)
            target = labels[:, start:stop]
            keep = valid[:, start:stop]
            index = target.masked_fill(~keep, 0)[:, None]
            correct += ((band.argmax(1) == target) & keep).sum()
            log_p = band.log_softmax(1)
            total -= (log_p.gather(1, index)[:, 0] * keep).sum(dtype=torch.float64)
            grad = log_p.exp_()  # d loss / d band: (softmax - one-hot) on kept pixels, scaled
            grad.scatter_add_(1, index, torch.full_like(index, -1, dtype=grad.dtype))
            grad.mul_(keep[:, None] * scale)
            grad_resized_w += rows.t() @ grad
            del band, log_p, grad
        # (B, C, h, w), float32: a float16 copy would lose what the loss scale lifts
        ctx.save_for_backward(grad_resized_w @ along_w)
        ctx.logits_dtype = logits.dtype
        ctx.mark_non_differentiable(correct)
        return (total * scale).float(), correct

    @staticmethod
    def backward(ctx, grad_loss, _grad_correct):
        (grad,) = ctx.saved_tensors
        return (grad * grad_loss).to(ctx.logits_dtype), None, None, None, None, None
