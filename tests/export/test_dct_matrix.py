"""Token Graying's DCT by matrices (the export form) against the FFT form of vitspec.layers."""

import torch

from vitspec.export.dct_matrix import MatrixDctGraying, dct_matrix
from vitspec.layers.dct import dct
from vitspec.layers.token_graying import TokenGraying


def test_dct_matrix_is_the_orthonormal_dct():
    x = torch.randn(3, 37, 12, dtype=torch.float64)
    assert torch.allclose(dct_matrix(37).double() @ x, dct(x, -2), atol=1e-6)
    big = dct_matrix(1369)  # a 518 x 518 image at patch 14
    assert (big @ big.T - torch.eye(1369)).abs().max() < 1e-5


def test_matrix_graying_equals_the_layer():
    layer = TokenGraying(4, 'dct', eps=0.6)
    image = torch.randn(2, 3, 12, 20)
    assert torch.allclose(MatrixDctGraying(layer)(image), layer(image), atol=1e-5)
