"""The last validation metrics of several work dirs as an aligned text table."""

import math
from pathlib import Path

from vitspec.runs.logs import NOT_METRICS, last_validation, validation_metrics


def table(work_dirs, metrics=None) -> str:
    """One row per work dir: its name, the step and ``metrics`` of its last validation record
    holding ``metrics[0]``; a metric the record lacks shows as '-', and one that no record
    holds is named below the table with the names the records do hold. ``metrics`` default to
    those the first run's evaluator logged."""
    metrics = list(metrics or validation_metrics(Path(work_dirs[0])))
    rows = [('run', 'iter', *metrics)]
    records = [last_validation(Path(wd), metrics[0]) for wd in work_dirs]
    for wd, record in zip(work_dirs, records):
        rows.append(
            (
                Path(wd).name,
                str(record.get('step', '?')),
                *(format_metric(record[m]) if m in record else '-' for m in metrics),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        '  '.join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
        for r in rows
    ]
    absent = [m for m in metrics if not any(m in r for r in records)]
    if absent:
        logged = sorted({k for r in records for k in r if k not in NOT_METRICS})
        lines.append(f'not logged by any run: {", ".join(absent)} (logged: {", ".join(logged)})')
    return '\n'.join(lines)


def format_metric(value) -> str:
    """Four significant digits, at least two decimals: 45.23 (mIoU %), 0.4120 (COCO AP, a
    fraction: 0.1 AP points), 1.199 (RMSE in m: 1 mm), 0.09870 (abs_rel)."""
    value = float(value)
    if value == 0 or not math.isfinite(value):
        return f'{value:g}'
    return f'{value:.{decimals(value)}f}'


def decimals(value: float) -> int:
    """The decimals of four significant digits of ``value`` (nonzero), at least two."""
    return max(2, 3 - math.floor(math.log10(abs(value))))
