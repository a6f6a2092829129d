"""Bilinear upsampling of class scores a band of output rows at a time.

``F.interpolate(x, size, mode='bilinear')`` of a (C, H, W) map to (C, H', W') allocates all C
full-size maps at once. Each output row only reads two input rows, so a band of output rows is
computed from the rows it needs: blended along H with the source rows and weights PyTorch's
bilinear kernel uses, then interpolated along W by ``F.interpolate`` itself. The values equal
``F.interpolate``'s up to float rounding (the two axes are blended in the other order).
"""

from typing import Iterator, Tuple

import torch
import torch.nn.functional as F
from torch import Tensor

DEFAULT_CHUNK_BYTES = 256 * 2**20


def source_rows(rows: Tensor, in_size: int, out_size: int, align_corners: bool):
    """For output row indices, the two input rows and their weights, as PyTorch's bilinear
    kernel computes them: a float32 scale, a float32 source coordinate clamped at 0 (rounded
    once from ``scale * (row + 0.5) - 0.5``, as the kernel's fused multiply-add does)."""
    if align_corners:
        scale = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    else:
        scale = in_size / out_size
    scale = float(torch.tensor(scale, dtype=torch.float32))
    if align_corners:
        src = rows.float() * scale
    else:
        src = ((rows.double() + 0.5) * scale - 0.5).float().clamp(min=0)
    top = src.long()
    bottom = torch.where(top < in_size - 1, top + 1, top)
    weight = src - top
    return top, bottom, 1 - weight, weight


def interpolation_matrix(in_size: int, out_size: int, align_corners: bool, device=None) -> Tensor:
    """The (out_size, in_size) float32 matrix of PyTorch's linear interpolation along one axis:
    ``matrix @ x`` resizes ``x`` along its first dimension as ``F.interpolate`` does."""
    rows = torch.arange(out_size, device=device)
    top, bottom, w_top, w_bottom = source_rows(rows, in_size, out_size, align_corners)
    matrix = torch.zeros(out_size, in_size, device=device)
    matrix.index_put_((rows, top), w_top, accumulate=True)
    matrix.index_put_((rows, bottom), w_bottom, accumulate=True)
    return matrix


def resized_rows(
    scores: Tensor, out_size: Tuple[int, int], start: int, stop: int, align_corners: bool
) -> Tensor:
    """Rows ``start:stop`` of the bilinear resize of ``scores`` (C, H, W) to ``out_size``."""
    rows = torch.arange(start, stop, device=scores.device)
    top, bottom, w_top, w_bottom = source_rows(rows, scores.shape[1], out_size[0], align_corners)
    w_top, w_bottom = (w.to(scores.dtype)[None, :, None] for w in (w_top, w_bottom))
    blended = scores[:, top] * w_top + scores[:, bottom] * w_bottom
    return F.interpolate(
        blended[None],
        size=(stop - start, out_size[1]),
        mode='bilinear',
        align_corners=align_corners,
    )[0]


def row_bands(
    out_size: Tuple[int, int], channels: int, element_size: int, max_bytes: int
) -> Iterator[Tuple[int, int]]:
    """``(start, stop)`` bands of output rows whose C full-width rows take at most
    ``max_bytes`` (one row at least)."""
    row_bytes = channels * out_size[1] * element_size
    step = max(1, max_bytes // row_bytes)
    for start in range(0, out_size[0], step):
        yield start, min(start + step, out_size[0])
