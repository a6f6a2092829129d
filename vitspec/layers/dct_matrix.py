"""The orthonormal DCT-II as a matrix built from the length, for export.

`vitspec.layers.dct` computes the DCT through a complex FFT with plans cached per length; the
exporter takes neither complex tensors nor a cache keyed on a symbolic length. This matrix of a
length is built inside the graph, so its size follows the input. Its products cost O(n^2) per
column instead of O(n log n): a few GFLOP for Token Graying of a 518 x 518 image at patch 14.
"""

import math

import torch


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
