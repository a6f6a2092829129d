"""Medians with distribution-free intervals, and ratios paired round by round."""

import math
import statistics


def median_interval(values, level=0.95):
    """The median and a distribution-free interval holding it with at least `level` chance.

    The interval runs from the k-th smallest to the k-th largest value, k the largest with
    P(Binomial(n, 1/2) < k) <= (1 - level) / 2; with too few values it is [min, max].
    """
    s, n = sorted(values), len(values)
    below, k = 0.0, 0
    while k < n // 2 and below + math.comb(n, k) / 2**n <= (1 - level) / 2:
        below += math.comb(n, k) / 2**n
        k += 1
    k = max(k, 1)
    return statistics.median(s), s[k - 1], s[n - k]


def paired_ratio(times, base_times):
    """`times` / `base_times` round by round: the median ratio and its 95 % interval."""
    return median_interval([t / b for t, b in zip(times, base_times, strict=True)])
