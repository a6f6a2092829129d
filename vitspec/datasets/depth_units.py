"""Is a depth PNG in the unit its ``depth_scale`` says? Judged on the valid (non-zero) pixels.

A map written in the wrong unit loads without complaint and evaluates to nonsense (NYU ground
truth in metres divided by 1000 is 3 mm deep: abs_rel in the thousands). Units differ by factors
of 100 to 1000, far more than real scenes vary, so two loose bounds tell them apart: the median
valid depth after scaling must lie in ``expected_range`` (metres), and no valid pixel may lie
beyond ``MAX_OVER_RANGE`` times its upper end.
"""

import numpy as np

from vitspec.errors import DataFileError

# Far returns beyond the evaluation cap exist (KITTI's LiDAR reaches past 80 m); a unit error
# overshoots by 100x or more.
MAX_OVER_RANGE = 2.0

# The units depth PNGs are written in, as the divisor that gives metres.
UNITS = {1: 'metres', 100: 'centimetres', 256: '1/256 m', 1000: 'millimetres'}


def check_depth_unit(raw: np.ndarray, depth_scale: float, expected_range, path: str) -> None:
    """DataFileError naming ``path`` if ``raw / depth_scale`` does not look like metres in
    ``expected_range`` (lo, hi); a map without a valid pixel is not judged here."""
    valid = raw[raw > 0]
    if valid.size == 0:
        return
    lo, hi = expected_range
    raw_median, raw_max = float(np.median(valid)), float(valid.max())
    if _fits(raw_median, raw_max, depth_scale, lo, hi):
        return
    unit = UNITS.get(depth_scale, f'1/{depth_scale:g} m')
    others = [
        name
        for scale, name in UNITS.items()
        if scale != depth_scale and _fits(raw_median, raw_max, scale, lo, hi)
    ]
    hint = (
        f'is it stored in {" or ".join(others)}?'
        if others
        else 'check depth_scale and the unit the PNGs were written in'
    )
    raise DataFileError(
        f'{path}: depth after scaling by 1/{depth_scale:g} has median '
        f'{raw_median / depth_scale:.3g} m and maximum {raw_max / depth_scale:.3g} m over '
        f'{valid.size} valid pixels; expected {unit} (depth_scale={depth_scale:g}): a median of '
        f'{lo:g}-{hi:g} m after scaling, nothing beyond {MAX_OVER_RANGE * hi:g} m — {hint}'
    )


def _fits(raw_median: float, raw_max: float, scale: float, lo: float, hi: float) -> bool:
    return lo <= raw_median / scale <= hi and raw_max / scale <= MAX_OVER_RANGE * hi
