"""The decomposed relative position lookup in its export form (integer offsets, the table
always resampled) against vitspec.layers.rel_pos, and only while exporting."""

import torch

from vitspec.export.rel_pos_lookup import rel_pos_for_export, rel_pos_lookup_same_axis
from vitspec.layers import rel_pos


def test_the_export_form_equals_the_lookup():
    table = torch.randn(7, 16)  # made for an axis of 4
    for size in (4, 5, 2, 9, 1):  # its own, longer, shorter
        want = rel_pos.rel_pos_lookup(size, size, table)
        got = rel_pos_lookup_same_axis(size, table)
        assert got.shape == want.shape == (size, size, 16)
        assert (got - want).abs().max() < 1e-6, size


def test_the_replacement_lasts_the_context_only():
    original = rel_pos.rel_pos_lookup
    table = torch.randn(7, 4)
    with rel_pos_for_export():
        assert rel_pos.rel_pos_lookup is not original
        assert rel_pos.rel_pos_lookup(3, 5, table).shape == (3, 5, 4)  # two axes: as before
    assert rel_pos.rel_pos_lookup is original
