"""Relative position biases added to the attention logits.

'decomposed' (MViTv2, ViTDet, SAM): per block, one embedding per relative offset along each
axis, ``rel_pos_h`` (2*S_h-1, head_dim) and ``rel_pos_w`` (2*S_w-1, head_dim); the bias of query
(i, j) for key (k, l) is ``q . rel_pos_h[i-k] + q . rel_pos_w[j-l]`` (unscaled q). A grid other
than the one the tables were made for resamples them linearly, as ViTDet's ``get_rel_pos``.

'table' (BEiT, MAE segmentation): one learned scalar per head and relative offset of the patch
grid, plus 3 entries for CLS->patch, patch->CLS and CLS->CLS; ``relative_position_index`` maps
each (query, key) pair of [CLS, patches] to its entry. Tied to one grid.
"""

from typing import Tuple

import torch
import torch.nn.functional as F

REL_POS_MODES = ('decomposed', 'table')


def rel_pos_lookup(q_size: int, k_size: int, rel_pos: torch.Tensor) -> torch.Tensor:
    """(q_size, k_size, C) embeddings of the offsets between q and k positions on one axis."""
    length = 2 * max(q_size, k_size) - 1
    if rel_pos.shape[0] != length:
        rel_pos = F.interpolate(rel_pos.t()[None], size=length, mode='linear')[0].t()
    # a shorter axis is stretched to the longer one's coordinates (q and k of different sizes)
    q_coords = torch.arange(q_size, device=rel_pos.device)[:, None] * max(k_size / q_size, 1.0)
    k_coords = torch.arange(k_size, device=rel_pos.device)[None, :] * max(q_size / k_size, 1.0)
    offsets = (q_coords - k_coords) + (k_size - 1) * max(q_size / k_size, 1.0)
    return rel_pos[offsets.long()]


def rel_pos_lookup_same_axis(size, rel_pos: torch.Tensor) -> torch.Tensor:
    """`rel_pos_lookup` (size, size, rel_pos) in a form whose size follows a symbolic input, for
    export: `rel_pos_lookup` stretches an axis by ``max(k_size / q_size, 1.0)``, a symbolic
    float the ONNX translation cannot multiply a tensor by (torch 2.14.1: "float() argument
    must be ... not 'SymbolicTensor'" in aten.mul.Scalar), and resamples the table only when
    its length differs from the grid's, a guard on the traced size. One axis against itself
    needs no stretch: the offsets are integers, and the table is always resampled to
    2 * size - 1 (linear, half-pixel: the identity at its own length)."""
    resized = F.interpolate(rel_pos.t()[None], size=2 * size - 1, mode='linear')[0].t()
    positions = torch.arange(size, device=rel_pos.device)
    return resized[positions[:, None] - positions[None, :] + (size - 1)]


def _axis_lookup(size, rel_pos: torch.Tensor) -> torch.Tensor:
    if torch.compiler.is_exporting():
        return rel_pos_lookup_same_axis(size, rel_pos)
    return rel_pos_lookup(size, size, rel_pos)


def decomposed_rel_pos_bias(
    q: torch.Tensor, rel_pos_h: torch.Tensor, rel_pos_w: torch.Tensor, hw: Tuple[int, int]
) -> torch.Tensor:
    """Bias (..., h*w, h*w) for queries ``q`` (..., h*w, C) laid out row-major on an h x w grid."""
    h, w = hw
    r_q = q.reshape(*q.shape[:-2], h, w, q.shape[-1])
    Rh = _axis_lookup(h, rel_pos_h).to(q.dtype)
    Rw = _axis_lookup(w, rel_pos_w).to(q.dtype)
    rel_h = torch.einsum('...hwc,hkc->...hwk', r_q, Rh)
    rel_w = torch.einsum('...hwc,wkc->...hwk', r_q, Rw)
    bias = rel_h[..., :, None] + rel_w[..., None, :]  # (..., h, w, kh, kw)
    return bias.reshape(*q.shape[:-2], h * w, h * w)


def table_size(grid: Tuple[int, int]) -> int:
    """Entries of a BEiT table for a patch grid: every 2-D offset plus the 3 CLS entries."""
    return (2 * grid[0] - 1) * (2 * grid[1] - 1) + 3


def table_index(grid: Tuple[int, int]) -> torch.Tensor:
    """(1 + h*w, 1 + h*w) long index of [CLS, patches] pairs into a BEiT table."""
    h, w = grid
    ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing='ij')
    coords = torch.stack([ys.flatten(), xs.flatten()])  # (2, h*w)
    rel = coords[:, :, None] - coords[:, None, :]  # (2, h*w, h*w)
    patch = (rel[0] + h - 1) * (2 * w - 1) + (rel[1] + w - 1)
    num = table_size(grid)
    index = torch.empty(h * w + 1, h * w + 1, dtype=torch.long)
    index[1:, 1:] = patch
    index[0, :] = num - 3  # CLS -> patch
    index[:, 0] = num - 2  # patch -> CLS
    index[0, 0] = num - 1  # CLS -> CLS
    return index


def table_rel_pos_bias(table: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """(1, heads, N, N) bias from a (entries, heads) table and an (N, N) index."""
    N = index.shape[0]
    return table[index.reshape(-1)].reshape(N, N, -1).permute(2, 0, 1)[None]
