"""The DCT-II matrix (Token Graying's export form) against the FFT DCT of vitspec.layers.dct."""

import torch

from vitspec.layers.dct import dct
from vitspec.layers.dct_matrix import dct_matrix


def test_dct_matrix_is_the_orthonormal_dct():
    x = torch.randn(3, 37, 12, dtype=torch.float64)
    assert torch.allclose(dct_matrix(37).double() @ x, dct(x, -2), atol=1e-6)
    big = dct_matrix(1369)  # a 518 x 518 image at patch 14
    assert (big @ big.T - torch.eye(1369)).abs().max() < 1e-5
