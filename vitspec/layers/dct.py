"""Orthonormal DCT-II and its inverse along one axis, in O(n log n) through a real FFT.

Makhoul (IEEE TASSP 1980): with v = (x_0, x_2, x_4, ..., x_5, x_3, x_1) and V = FFT(v), the
unscaled DCT-II is Y_k = Re(exp(-i pi k / 2n) V_k), and for a real input
exp(-i pi k / 2n) V_k = Y_k - i Y_{n-k}, so half of the spectrum gives every coefficient.

Each direction is one gather, one FFT, one complex multiply and one gather; the orthonormal
scale (s_0 = sqrt(1/n), s_k = sqrt(2/n)) is folded into the twiddle factors, and the complex
conjugates the algebra asks for are taken by reversing the FFT's input or output
(FFT(reverse(v)) = conj(FFT(v)) for real v), which is again a gather. dct(x) equals D @ x for
the orthonormal DCT-II matrix D, and idct is D^T.
"""
from functools import lru_cache
from typing import NamedTuple

import torch


class _Plan(NamedTuple):
    forward_gather: torch.Tensor  # x -> reversed Makhoul order
    forward_twiddle: torch.Tensor
    forward_scatter: torch.Tensor  # (Re z_0, Im z_0, Re z_1, ...) -> coefficient order
    inverse_gather: torch.Tensor  # coefficients -> (Y_k, Y_{n-k}) pairs
    inverse_twiddle: torch.Tensor
    inverse_scatter: torch.Tensor  # reversed Makhoul order -> x


@lru_cache(maxsize=32)
def _plan(n: int, device: torch.device, dtype: torch.dtype) -> _Plan:
    index = torch.arange(n)
    makhoul = torch.cat([index[::2], index[1::2].flip(0)])
    reversed_makhoul = makhoul[(-index) % n]  # its FFT is the conjugate of FFT(makhoul order)
    half = torch.arange(n // 2 + 1)
    k = half.double()
    scale = torch.full((n // 2 + 1, ), (2.0 / n) ** 0.5, dtype=torch.float64)
    scale[0] = (1.0 / n) ** 0.5
    angle = torch.pi * k / (2 * n)
    # conj(V_k) exp(i pi k / 2n) = Y_k + i Y_{n-k}: real parts in the even slots, the rest in the odd
    forward_scatter = torch.where(index <= n // 2, 2 * index, 2 * (n - index) + 1)
    inverse_gather = torch.stack([half, (n - half) % n], dim=-1).flatten()
    inverse_scatter = ((-torch.argsort(makhoul)) % n)
    complex_dtype = torch.complex128 if dtype == torch.float64 else torch.complex64
    return _Plan(
        reversed_makhoul.to(device),
        torch.polar(scale, angle).to(device, complex_dtype),
        forward_scatter.to(device),
        inverse_gather.to(device),
        torch.polar(1.0 / scale, -angle).to(device, complex_dtype),
        inverse_scatter.to(device))


def dct(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Orthonormal DCT-II of a real float tensor along `dim`."""
    x = x.movedim(dim, -1)
    plan = _plan(x.shape[-1], x.device, x.dtype)
    z = torch.fft.rfft(x.index_select(-1, plan.forward_gather)) * plan.forward_twiddle
    y = torch.view_as_real(z).flatten(-2).index_select(-1, plan.forward_scatter)
    return y.movedim(-1, dim)


def idct(y: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Inverse of `dct` (the orthonormal DCT-III) along `dim`."""
    y = y.movedim(dim, -1)
    n = y.shape[-1]
    plan = _plan(n, y.device, y.dtype)
    pairs = y.index_select(-1, plan.inverse_gather).unflatten(-1, (-1, 2))
    # (Y_k + i Y_{n-k}) exp(-i pi k / 2n) is the conjugate of the spectrum Makhoul's inverse needs;
    # the imaginary part at k = 0 is ignored by irfft
    v = torch.fft.irfft(torch.view_as_complex(pairs) * plan.inverse_twiddle, n=n)
    return v.index_select(-1, plan.inverse_scatter).movedim(-1, dim)
