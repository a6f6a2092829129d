import math

import pytest
import torch

from vitspec.layers.dct import dct, idct


def dct_ii_by_definition(x: torch.Tensor) -> torch.Tensor:
    """The orthonormal DCT-II along the last axis, term by term from its formula."""
    n = x.shape[-1]
    i = torch.arange(n, dtype=torch.float64)
    rows = [(x * torch.cos(math.pi * (2 * i + 1) * k / (2 * n))).sum(-1) for k in range(n)]
    scale = torch.full((n,), math.sqrt(2 / n), dtype=torch.float64)
    scale[0] = math.sqrt(1 / n)
    return torch.stack(rows, dim=-1) * scale


@pytest.mark.parametrize('n', [1, 2, 3, 4, 7, 8, 13, 196])
def test_dct_matches_definition_and_idct_inverts(n):
    x = torch.randn(3, n, dtype=torch.float64)
    y = dct(x)
    torch.testing.assert_close(y, dct_ii_by_definition(x))
    torch.testing.assert_close(idct(y), x)
    torch.testing.assert_close(dct(idct(x)), x)


def test_orthonormal_keeps_norm_and_idct_is_transpose():
    n = 768  # the pixel axis of a 16x16x3 patch
    eye = torch.eye(n, dtype=torch.float64)
    d = dct(eye)  # row i is D @ e_i, i.e. column i of D: d = D^T
    torch.testing.assert_close(d @ d.T, eye)
    torch.testing.assert_close(idct(eye), d.T)
    x = torch.randn(4, n)
    torch.testing.assert_close(dct(x).norm(dim=-1), x.norm(dim=-1), rtol=1e-5, atol=0)


def test_any_axis_and_dtype():
    x = torch.randn(2, 5, 6, 7)
    for dim in range(4):
        y = dct(x, dim)
        assert y.shape == x.shape and y.dtype == torch.float32
        torch.testing.assert_close(y.movedim(dim, -1), dct(x.movedim(dim, -1).contiguous()))
        torch.testing.assert_close(idct(y, dim), x, rtol=1e-5, atol=1e-5)
