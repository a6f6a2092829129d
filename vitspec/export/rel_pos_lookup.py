"""The decomposed relative position lookup in a form whose size follows the input.

``vitspec.layers.rel_pos.rel_pos_lookup`` stretches the shorter of two axes by
``max(k_size / q_size, 1.0)`` and resamples the table only when its length differs from the
grid's: with a symbolic grid the first is a symbolic float, which the ONNX translation cannot
multiply a tensor by (torch 2.14.1: "float() argument must be ... not 'SymbolicTensor'" in
aten.mul.Scalar), and the second a guard on the traced size. Attention always looks up a grid
against itself (q_size == k_size, the stretch is 1): here the offsets are integers and the
table is always resampled to 2 * size - 1 (linear, half-pixel: the identity at its own length).
During `rel_pos_for_export`, the decomposed bias looks up this way.
"""

from contextlib import contextmanager

import torch
import torch.nn.functional as F

from vitspec.layers import rel_pos


def rel_pos_lookup_same_axis(size, table: torch.Tensor) -> torch.Tensor:
    """(size, size, C) embeddings of the offsets between positions of one axis of ``size``."""
    resized = F.interpolate(table.t()[None], size=2 * size - 1, mode='linear')[0].t()
    positions = torch.arange(size, device=table.device)
    return resized[positions[:, None] - positions[None, :] + (size - 1)]


@contextmanager
def rel_pos_for_export():
    """``rel_pos_lookup`` of one axis against itself by `rel_pos_lookup_same_axis` while the
    context lasts (the export); two axes of different sizes as before."""
    original = rel_pos.rel_pos_lookup

    def lookup(q_size, k_size, table):
        if q_size is k_size:
            return rel_pos_lookup_same_axis(q_size, table)
        return original(q_size, k_size, table)

    rel_pos.rel_pos_lookup = lookup
    try:
        yield
    finally:
        rel_pos.rel_pos_lookup = original
