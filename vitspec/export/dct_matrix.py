"""Token Graying's DCT variant as matrix products, for export.

`vitspec.layers.dct` computes the DCT through a complex FFT with plans cached per length; the
exporter takes neither complex tensors nor a cache keyed on a symbolic length. Here the
orthonormal DCT-II matrix of the token count is built inside the graph (its size follows the
image), so the rule is the same one: c <- sign(c) * c_max * (|c| / c_max)**eps on D_N X D_d^T.
Its cost is O(N^2 d) instead of O(N d log N): a few GFLOP for a 518 x 518 image at patch 14.
"""

import math

import torch
from torch import nn

from vitspec.layers.token_graying import TokenGraying, gray_coefficients, patchify, unpatchify


def dct_matrix(n, device=None) -> torch.Tensor:
    """(n, n) orthonormal DCT-II: row k is s_k cos(pi (2i + 1) k / 2n). The angle is taken
    modulo 2 pi in integers first, so float32 keeps its precision for large n; s_k comes from
    the row norms, so no symbolic length becomes a float."""
    k = torch.arange(n, device=device).unsqueeze(1)
    i = torch.arange(n, device=device).unsqueeze(0)
    length = i[:, -1:] + 1  # n as a tensor: the exporter takes no symbolic int in remainder
    turns = torch.remainder((2 * i + 1) * k, 4 * length).float()  # in units of pi / 2n
    matrix = torch.cos(turns * (math.pi / 2) / length.float())
    # row norms are sqrt(n) for k = 0 and sqrt(n / 2) else: dividing by them gives s_k
    return matrix / torch.linalg.vector_norm(matrix, dim=1, keepdim=True)


class MatrixDctGraying(nn.Module):
    """The same map as ``TokenGraying(mode='dct')``, by DCT matrices instead of FFTs."""

    def __init__(self, graying: TokenGraying):
        super().__init__()
        if graying.mode != 'dct':
            raise ValueError(f'MatrixDctGraying replaces the dct mode, not {graying.mode!r}')
        self.patch_size = graying.patch_size
        self.eps = graying.eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.eps == 1.0:
            return x
        tokens = patchify(x.float(), self.patch_size)
        rows = dct_matrix(tokens.shape[-2], tokens.device)
        cols = dct_matrix(tokens.shape[-1], tokens.device)
        c = gray_coefficients(rows @ tokens @ cols.T, self.eps)
        out = rows.T @ c @ cols
        return unpatchify(out, self.patch_size, x.shape).to(x.dtype)
