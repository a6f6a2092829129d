"""Token Graying ("Always Skip Attention", arXiv 2505.01996): an image's patch matrix
pre-conditioned before patch embedding, by SVD or by DCT."""

import torch
from torch import nn

from vitspec.errors import ConfigError, InputShapeError

from .dct import dct, idct
from .dct_matrix import dct_matrix

TOKEN_GRAYING_MODES = ('dct', 'svd')


def patchify(x: torch.Tensor, patch_size: int) -> torch.Tensor:
    """(B, C, H, W) -> (B, N, P*P*C): one row per patch (raster order), pixels in (p, q, c)
    order."""
    B, C, H, W = x.shape
    p = patch_size
    if H % p or W % p:
        raise InputShapeError(
            f'input size {H}x{W} is not a multiple of the patch size {p}; pad it first '
            f'(e.g. size_divisor={p} in the data preprocessor)'
        )
    x = x.reshape(B, C, H // p, p, W // p, p).permute(0, 2, 4, 3, 5, 1)
    return x.reshape(B, (H // p) * (W // p), p * p * C)


def unpatchify(x: torch.Tensor, patch_size: int, shape) -> torch.Tensor:
    """Inverse of `patchify`; `shape` is the (B, C, H, W) of the image."""
    B, C, H, W = shape
    p = patch_size
    x = x.reshape(B, H // p, W // p, p, p, C).permute(0, 5, 1, 3, 2, 4)
    return x.reshape(B, C, H, W)


def _safe_max(x: torch.Tensor) -> torch.Tensor:
    # an all-zero sample (e.g. fully padded) stays zero instead of producing 0/0
    return x.clamp_min(torch.finfo(x.dtype).tiny)


def svd_graying(x: torch.Tensor, eps: float) -> torch.Tensor:
    """SVD-TG on token matrices (..., N, d): s <- s_max * (s / s_max)**eps, so
    kappa -> kappa**eps."""
    u, s, vh = torch.linalg.svd(x, full_matrices=False)
    s_max = _safe_max(s[..., :1])
    s = s_max * (s / s_max).pow(eps)
    return (u * s.unsqueeze(-2)) @ vh


def gray_coefficients(c: torch.Tensor, eps: float) -> torch.Tensor:
    """DCT-TG's rule on coefficient matrices (..., N, d): c <- sign(c) * c_max * (|c| /
    c_max)**eps."""
    c_max = _safe_max(c.abs().amax(dim=(-2, -1), keepdim=True))
    return c.sign() * c_max * (c.abs() / c_max).pow(eps)


def dct_graying(x: torch.Tensor, eps: float) -> torch.Tensor:
    """DCT-TG on token matrices (..., N, d): `gray_coefficients` on D_N x D_d^T."""
    c = gray_coefficients(dct(dct(x, -1), -2), eps)
    return idct(idct(c, -2), -1)


def dct_graying_by_matrices(x: torch.Tensor, eps: float) -> torch.Tensor:
    """`dct_graying` by DCT matrices built from the token count (`dct_matrix`), for export: no
    complex tensors, no plan cached per length."""
    rows = dct_matrix(x.shape[-2], x.device)
    cols = dct_matrix(x.shape[-1], x.device)
    c = gray_coefficients(rows @ x @ cols.T, eps)
    return rows.T @ c @ cols


class TokenGraying(nn.Module):
    """Token Graying ("Always Skip Attention", arXiv 2505.01996) on the image, before patch
    embedding.

    Each image is patchified to X (N, P*P*C), one row per patch, and X is pre-conditioned so that
    its condition number kappa = s_max / s_min drops:

    - 'svd': X = U S V^T, X~ = U (s_max * (S / s_max)**eps) V^T. kappa(X~) = kappa(X)**eps exactly,
      and the largest singular value (spectral norm) is kept. Costs a batched SVD (~6x training
      time in the paper); kept as the reference.
    - 'dct': C = D_N X D_d^T (orthonormal DCT-II along the patch and the pixel axes, by FFT),
      c <- sign(c) * c_max * (|c| / c_max)**eps, X~ = D_N^T C D_d. The exact rule is not public;
      this is our reading of the paper, the direct analogue of the SVD rule. It keeps the
      largest |DCT coefficient| and every sign; the Frobenius norm can only grow (by at most
      sqrt(N*d) * c_max). It lowers kappa on natural images, it does not set it to kappa**eps.

    eps in (0, 1]; eps = 1 is the identity. Small coefficients are lifted towards the largest,
    which keeps the input's scale so the normalisation the model was trained with stays valid.

    The input is what the data preprocessor produced: per-channel mean/std normalised over the
    dataset (not per image) and padded to the size divisor. kappa is measured on that matrix, so
    the normalisation changes the result (mean subtraction removes most of the DC energy that
    would otherwise dominate s_max). Padded patches are zero rows: 'svd' keeps them zero, 'dct'
    mixes along the patch axis and spreads some energy into them.

    Parameter-free and deterministic, applied identically at train and test time, computed per
    image in float32 (also under autocast) and returned in the input dtype. While exporting
    (``torch.compiler.is_exporting()``), 'dct' takes its DCTs by matrices
    (`dct_graying_by_matrices`).
    """

    def __init__(self, patch_size: int, mode: str = 'dct', *, eps: float):
        super().__init__()
        if mode not in TOKEN_GRAYING_MODES:
            raise ConfigError(
                f'token graying mode must be one of {TOKEN_GRAYING_MODES}, got {mode!r}'
            )
        if not 0.0 < eps <= 1.0:
            raise ConfigError(f'token graying eps must be in (0, 1] (1 is the identity), got {eps}')
        if patch_size < 1:
            raise ConfigError(f'patch_size must be positive, got {patch_size}')
        self.patch_size = patch_size
        self.mode = mode
        self.eps = float(eps)

    def extra_repr(self) -> str:
        return f'patch_size={self.patch_size}, mode={self.mode!r}, eps={self.eps}'

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.eps == 1.0:
            return x
        if self.mode == 'dct' and torch.compiler.is_exporting():
            tokens = dct_graying_by_matrices(patchify(x.float(), self.patch_size), self.eps)
            return unpatchify(tokens, self.patch_size, x.shape).to(x.dtype)
        transform = svd_graying if self.mode == 'svd' else dct_graying
        with torch.autocast(device_type=x.device.type, enabled=False):
            tokens = patchify(x.float(), self.patch_size)
            out = unpatchify(transform(tokens, self.eps), self.patch_size, x.shape)
        return out.to(x.dtype)
