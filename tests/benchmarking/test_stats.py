"""vitspec.benchmarking.stats: median intervals from order statistics, paired ratios."""

import pytest

from vitspec.benchmarking.stats import median_interval, paired_ratio
from vitspec.benchmarking.targets import check_targets


def test_median_interval_takes_the_order_statistics_of_the_binomial_table():
    # published 95 % ranks for the median: n = 10 -> 2nd and 9th, n = 40 -> 14th and 27th
    assert median_interval(range(1, 11)) == (5.5, 2, 9)
    assert median_interval(range(1, 41)) == (20.5, 14, 27)
    assert median_interval([3, 1, 2]) == (2, 1, 3)  # too few values: min and max


def test_paired_ratio_cancels_what_a_round_shares():
    # the host's speed moves by 60 % over the run; the model is 2 % slower in every round
    host = [1.0 + 0.6 * ((7 * r) % 10) / 10 for r in range(40)]
    base = [h * 0.5 for h in host]
    model = [h * 0.51 for h in host]
    assert paired_ratio(model, base) == pytest.approx((1.02, 1.02, 1.02))
    noisy = [m * (1.04 if r % 2 else 0.97) for r, m in enumerate(model)]
    ratio, low, high = paired_ratio(noisy, base)
    assert low < 1.00 < ratio < 1.03 < high
    rows = [
        dict(model='base', times_s=base, median_s=None),
        dict(model='noisy', times_s=noisy, median_s=None),
    ]
    target = ('t', (0, 'noisy'), (0, 'base'), 'time', '<= 1.00')
    [line] = check_targets([target], [dict(rows=rows)])
    assert line.endswith('(target <= 1.00) MISSED, within the noise')
