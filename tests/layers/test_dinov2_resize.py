"""DINOv2's position-embedding resampling by matrices (the export form) against
vitspec.layers.pos_embed, and taken by resample_pos_embed while exporting only."""

import torch

from vitspec.layers.dinov2_resize import resample_dinov2_by_matrices
from vitspec.layers.pos_embed import resample_pos_embed


def test_matrices_equal_the_interpolation():
    pos_embed = torch.randn(1, 1 + 37 * 37, 16) * 0.05  # about a trained table's scale
    # (37, 37): the table's own grid, kept; (37, 45): one axis of its own length, resampled
    for new_hw in [(40, 40), (30, 50), (10, 7), (74, 100), (37, 37), (37, 45)]:
        want = resample_pos_embed(pos_embed, new_hw, (37, 37), 1, 'dinov2')
        got = resample_dinov2_by_matrices(pos_embed, new_hw, (37, 37), 1)
        assert got.shape == want.shape and (got - want).abs().max() < 1e-6


class Resample(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pos_embed = torch.nn.Parameter(torch.randn(1, 1 + 5 * 5, 8) * 0.05)

    def forward(self, grid):  # grid: (h, w), its shape the new grid
        return resample_pos_embed(self.pos_embed, grid.shape, (5, 5), 1, 'dinov2')


def test_an_exported_graph_follows_the_size():
    """Eager, the scale factor of the traced size would be a constant of the graph; while
    exporting the matrices are built from the symbolic size, so other sizes are right."""
    model = Resample()
    dims = ({0: torch.export.Dim.AUTO, 1: torch.export.Dim.AUTO},)
    program = torch.export.export(model, (torch.zeros(7, 6),), dynamic_shapes=dims)
    # not the table's own grid: the graph keeps the guard that resample_pos_embed returns the
    # table there (SpecViT's export traces at another grid; the ONNX form keeps it by matrices)
    for hw in [(7, 6), (3, 9), (12, 4), (6, 5)]:
        want = model(torch.zeros(hw))
        got = program.module()(torch.zeros(hw))
        assert got.shape == want.shape and (got - want).abs().max() < 1e-6, hw
