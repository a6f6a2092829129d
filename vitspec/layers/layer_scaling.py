"""Layer-wise scaling (OpenELM 2404.14619, after DeLighT's block-wise scaling 2008.00623).

The number of heads and the MLP width grow linearly with depth while the residual width stays
constant (so every block's output can still be tapped). Rounding follows OpenELM's code exactly.
"""

from typing import List, NamedTuple, Optional, Sequence

import numpy as np

from vitspec.errors import ConfigError


class LayerWidth(NamedTuple):
    num_heads: int
    mlp_hidden: int


def make_divisible(v: float, divisor: int, min_value: Optional[int] = None) -> int:
    """Nearest multiple of ``divisor`` to ``v``, at least ``min_value`` (default ``divisor``),
    and bumped up one step if rounding lost more than 10 % of ``v``."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def linear_multipliers(bounds: Sequence[float], num_layers: int) -> List[float]:
    """``bounds[0]`` to ``bounds[1]`` in ``num_layers`` even steps, each rounded to 2 decimals.

    The 2-decimal rounding is OpenELM's and decides where the head count steps, so it is kept
    bit-exact: numpy's round of np.linspace's float64 values.
    """
    low, high = bounds
    return [float(round(v, 2)) for v in np.linspace(low, high, num=num_layers, dtype=float)]


def layerwise_widths(
    num_layers: int,
    embed_dims: int,
    head_dim: int,
    alpha: Sequence[float] = (0.5, 1.0),
    beta: Sequence[float] = (0.5, 4.0),
    head_divisor: Optional[int] = None,
    ffn_divisor: int = 64,
) -> List[LayerWidth]:
    """Per-layer ``(num_heads, mlp_hidden)`` of OpenELM's layer-wise scaling.

    Layer i's attention width is ``make_divisible(alpha_i * embed_dims, head_divisor)`` with
    ``head_dim`` fixed (only the head count varies) and its MLP hidden width is
    ``make_divisible(beta_i * embed_dims, ffn_divisor)``; alpha_i, beta_i from
    ``linear_multipliers``. ``head_divisor`` defaults to ``head_dim`` (multi-head attention);
    OpenELM's GQA uses ``head_dim * num_gqa_groups``. OpenELM uses ffn_divisor 256; 64 suits ViTs.
    alpha = (1, 1), beta = (r, r) gives the uniform ViT (when embed_dims * r is divisible).
    """
    head_divisor = head_divisor or head_dim
    if head_divisor % head_dim:
        raise ConfigError(f'head_divisor {head_divisor} is not a multiple of head_dim {head_dim}')
    return [
        LayerWidth(
            make_divisible(a * embed_dims, head_divisor) // head_dim,
            make_divisible(b * embed_dims, ffn_divisor),
        )
        for a, b in zip(linear_multipliers(alpha, num_layers), linear_multipliers(beta, num_layers))
    ]
