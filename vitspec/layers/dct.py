"""Orthonormal DCT-II and its inverse along one axis, in O(n log n) through a real FFT.

Makhoul (IEEE TASSP 1980): with v = (x_0, x_2, x_4, ..., x_5, x_3, x_1) and V = FFT(v), the
unscaled DCT-II is Y_k = Re(exp(-i pi k / 2n) V_k), and for a real input
exp(-i pi k / 2n) V_k = Y_k - i Y_{n-k}, so half of the spectrum gives every coefficient.

Each direction is one gather, one FFT, one complex multiply and the real and imaginary halves
put in coefficient order (a slice and a flip); the orthonormal scale (s_0 = sqrt(1/n),
s_k = sqrt(2/n)) is folded into the twiddle factors, and the complex conjugates the algebra
asks for are taken by reversing the FFT's input or output (FFT(reverse(v)) = conj(FFT(v)) for
real v), which is again a gather. dct(x) equals D @ x for
the orthonormal DCT-II matrix D, and idct is D^T.
"""

from typing import NamedTuple

import torch

from vitspec.layers.eager_cache import EagerCache


class _Plan(NamedTuple):
    forward_gather: torch.Tensor  # x -> reversed Makhoul order
    forward_twiddle: torch.Tensor
    inverse_twiddle: torch.Tensor
    inverse_scatter: torch.Tensor  # reversed Makhoul order -> x


def _build_plan(n: int, device: torch.device, dtype: torch.dtype) -> _Plan:
    index = torch.arange(n)
    makhoul = torch.cat([index[::2], index[1::2].flip(0)])
    reversed_makhoul = makhoul[(-index) % n]  # its FFT is the conjugate of FFT(makhoul order)
    half = torch.arange(n // 2 + 1)
    k = half.double()
    scale = torch.full((n // 2 + 1,), (2.0 / n) ** 0.5, dtype=torch.float64)
    scale[0] = (1.0 / n) ** 0.5
    angle = torch.pi * k / (2 * n)
    inverse_scatter = (-torch.argsort(makhoul)) % n
    complex_dtype = torch.complex128 if dtype == torch.float64 else torch.complex64
    return _Plan(
        reversed_makhoul.to(device),
        torch.polar(scale, angle).to(device, complex_dtype),
        torch.polar(1.0 / scale, -angle).to(device, complex_dtype),
        inverse_scatter.to(device),
    )


_plan = EagerCache(_build_plan, maxsize=32)


def dct(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Orthonormal DCT-II of a real float tensor along `dim`."""
    dim %= x.dim()
    n = x.shape[dim]
    plan = _plan(x, n, x.device, x.dtype)
    z = torch.fft.rfft(_take(x, dim, plan.forward_gather), dim=dim)
    # z_k = conj(V_k) exp(i pi k / 2n) = Y_k + i Y_{n-k}
    z = z * _along(plan.forward_twiddle, dim, x.dim())
    return torch.cat([z.real, z.imag.narrow(dim, 1, n - z.shape[dim]).flip(dim)], dim)


def idct(y: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Inverse of `dct` (the orthonormal DCT-III) along `dim`."""
    dim %= y.dim()
    n = y.shape[dim]
    plan = _plan(y, n, y.device, y.dtype)
    m = n // 2 + 1
    # (Y_k + i Y_{n-k}) exp(-i pi k / 2n) is the conjugate of the spectrum Makhoul's inverse needs;
    # the imaginary parts at k = 0 (and at n / 2) are ignored by irfft
    imag = torch.cat([y.narrow(dim, 0, 1), y.narrow(dim, n - m + 1, m - 1).flip(dim)], dim)
    z = torch.complex(y.narrow(dim, 0, m), imag) * _along(plan.inverse_twiddle, dim, y.dim())
    return _take(torch.fft.irfft(z, n=n, dim=dim), dim, plan.inverse_scatter)


def _along(v: torch.Tensor, dim: int, ndim: int) -> torch.Tensor:
    """A 1-d tensor shaped to broadcast along `dim` of an `ndim`-d tensor."""
    return v.view([-1 if d == dim else 1 for d in range(ndim)])


def _take(x: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
    """``x.index_select(dim, index)``; along the innermost dim through gather, several times
    faster there on the CPU (and several times slower along the others)."""
    if dim < x.dim() - 1:
        return x.index_select(dim, index)
    return x.gather(dim, _along(index, dim, x.dim()).expand(x.shape))
