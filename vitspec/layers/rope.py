"""2-D rotary position embedding of the patch grid as DINOv3 defines it (arXiv 2508.10104;
facebookresearch/dinov3, dinov3/layers/rope_position_encoding.py).

Each head's channels split in halves that rotate against each other ("rotate half"): the first
quarter of the pairs turns with the row coordinate, the second with the column coordinate, at
``head_dim // 4`` periods. Coordinates are patch centres scaled into [-1, 1]: by the grid's own
height and width ('separate'), or both by the longer ('max') or the shorter ('min') side. The
periods follow ``base ** (4 i / head_dim)``, or run geometrically from ``min_period`` to
``max_period``. In training mode the coordinates may be shifted, jittered per axis and rescaled
(``shift_coords``, ``jitter_coords``, ``rescale_coords``, as DINOv3's pretraining); in eval mode
never. Prefix tokens (CLS, registers) get the identity rotation.
"""

import math
from typing import Optional, Tuple

import torch
from torch import nn

from vitspec.errors import ConfigError

NORMALIZE_COORDS = ('separate', 'max', 'min')

Rotation = Tuple[torch.Tensor, torch.Tensor]  # (sin, cos), each (num_tokens, head_dim)


class RopePositionEmbedding(nn.Module):
    """(sin, cos) tables for ``[prefix tokens | h x w patch grid]``.

    ``periods`` is a buffer that checkpoints carry (DINOv3 stores it), so a loaded model rotates
    with exactly the periods it was trained with; it starts from ``base`` or the period range.
    """

    def __init__(
        self,
        head_dim: int,
        base: Optional[float] = 100.0,
        min_period: Optional[float] = None,
        max_period: Optional[float] = None,
        normalize_coords: str = 'separate',
        shift_coords: Optional[float] = None,
        jitter_coords: Optional[float] = None,
        rescale_coords: Optional[float] = None,
    ):
        super().__init__()
        if head_dim % 4:
            raise ConfigError(f'2-D rotary embedding needs head_dim divisible by 4, got {head_dim}')
        if (base is None) == (min_period is None or max_period is None):
            raise ConfigError(
                'rope: give either base or both min_period and max_period, '
                f'got base={base}, min_period={min_period}, max_period={max_period}'
            )
        if normalize_coords not in NORMALIZE_COORDS:
            raise ConfigError(
                f'rope normalize_coords must be one of {NORMALIZE_COORDS}, got {normalize_coords!r}'
            )
        for name, factor in (('jitter_coords', jitter_coords), ('rescale_coords', rescale_coords)):
            if factor is not None and factor < 1:
                raise ConfigError(f'rope {name} is a factor >= 1, got {factor}')
        self.head_dim = head_dim
        self.normalize_coords = normalize_coords
        self.shift_coords = shift_coords
        self.jitter_coords = jitter_coords
        self.rescale_coords = rescale_coords
        self.register_buffer('periods', rope_periods(head_dim, base, min_period, max_period))

    def coords(self, hw) -> torch.Tensor:
        """(h * w, 2) row / column coordinates of the patch centres, row-major."""
        h, w = hw
        scale = dict(separate=(h, w), max=(max(h, w),) * 2, min=(min(h, w),) * 2)
        sh, sw = scale[self.normalize_coords]
        dev = self.periods.device
        rows = torch.arange(0.5, h, device=dev, dtype=torch.float32) / sh
        cols = torch.arange(0.5, w, device=dev, dtype=torch.float32) / sw
        grid = torch.stack(torch.meshgrid(rows, cols, indexing='ij'), dim=-1).reshape(-1, 2)
        grid = 2.0 * grid - 1.0
        if self.training:
            grid = self._augment(grid)
        return grid

    def _augment(self, grid: torch.Tensor) -> torch.Tensor:
        if self.shift_coords is not None:
            grid = grid + grid.new_empty(2).uniform_(-self.shift_coords, self.shift_coords)
        if self.jitter_coords is not None:
            log_j = math.log(self.jitter_coords)
            grid = grid * grid.new_empty(2).uniform_(-log_j, log_j).exp()
        if self.rescale_coords is not None:
            log_r = math.log(self.rescale_coords)
            grid = grid * grid.new_empty(1).uniform_(-log_r, log_r).exp()
        return grid

    def forward(self, hw, num_prefix: int = 0) -> Rotation:
        """float32 (sin, cos), each (num_prefix + h * w, head_dim); prefix rows: sin 0, cos 1."""
        angles = 2 * math.pi * self.coords(hw)[:, :, None] / self.periods.float()
        angles = angles.flatten(1).repeat(1, 2)  # [rows | cols] for each half of the head
        sin, cos = angles.sin(), angles.cos()
        if num_prefix:
            sin = torch.cat([sin.new_zeros(num_prefix, self.head_dim), sin])
            cos = torch.cat([cos.new_ones(num_prefix, self.head_dim), cos])
        return sin, cos


def rope_periods(
    head_dim: int,
    base: Optional[float] = 100.0,
    min_period: Optional[float] = None,
    max_period: Optional[float] = None,
) -> torch.Tensor:
    """The ``head_dim // 4`` float32 periods of DINOv3's schedule (base, or the period range)."""
    n = head_dim // 4
    if base is not None:
        return base ** (2 * torch.arange(n, dtype=torch.float32) / (head_dim // 2))
    exponents = torch.linspace(0, 1, n, dtype=torch.float32)
    return min_period * (max_period / min_period) ** exponents


def apply_rope(x: torch.Tensor, rotation: Rotation) -> torch.Tensor:
    """Rotate (..., N, head_dim) ``x`` by (sin, cos) of N rows, in the tables' precision; the
    result has x's dtype."""
    sin, cos = rotation
    xf = x.to(sin.dtype)
    first, second = xf.chunk(2, dim=-1)
    return (xf * cos + torch.cat([-second, first], dim=-1) * sin).to(x.dtype)
