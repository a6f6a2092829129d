"""DINOv2's position-embedding resampling by matrices (the export form) against
vitspec.layers.pos_embed, and only while exporting."""

import torch

from vitspec.export.dinov2_resampling import resample_dinov2_by_matrices, resampling_for_export
from vitspec.layers.pos_embed import resample_pos_embed
from vitspec.models.backbones import spec_vit


def test_matrices_equal_the_interpolation():
    pos_embed = torch.randn(1, 1 + 37 * 37, 16) * 0.05  # about a trained table's scale
    # (37, 37): the table's own grid, kept; (37, 45): one axis of its own length, resampled
    for new_hw in [(40, 40), (30, 50), (10, 7), (74, 100), (37, 37), (37, 45)]:
        want = resample_pos_embed(pos_embed, new_hw, (37, 37), 1, 'dinov2')
        got = resample_dinov2_by_matrices(pos_embed, new_hw, (37, 37), 1)
        assert got.shape == want.shape and (got - want).abs().max() < 1e-6


def test_the_replacement_lasts_the_context_only():
    original = spec_vit.resample_pos_embed
    with resampling_for_export():
        assert spec_vit.resample_pos_embed is not original
    assert spec_vit.resample_pos_embed is original
