"""Backbone speed and memory, side by side in one run: interleaved, repeated, medians, ratios.

Each configuration is built in its own worker process (`worker.Worker`) and timed in turn, round
after round, the order rotating from round to round (`measure.run_setting`); speeds are paired
per round and summarised by the median with a distribution-free interval (`stats`).
`tools/benchmark.py` is the command line.
"""

from .measure import run_setting
from .presets import PRESETS, TARGETS
from .stats import median_interval, paired_ratio
from .targets import check_targets

__all__ = ['PRESETS', 'TARGETS', 'check_targets', 'median_interval', 'paired_ratio', 'run_setting']
