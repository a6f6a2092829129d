"""The last validation metrics of several work dirs as an aligned text table."""

from pathlib import Path

from .run_logs import last_validation


def table(work_dirs, metrics) -> str:
    """One row per work dir: its name, the step and ``metrics`` of its last validation record
    holding ``metrics[0]``; a metric the record lacks shows as '-'."""
    rows = [('run', 'iter', *metrics)]
    for wd in work_dirs:
        record = last_validation(Path(wd), metrics[0])
        rows.append(
            (
                Path(wd).name,
                str(record.get('step', '?')),
                *(f'{record[m]:.2f}' if m in record else '-' for m in metrics),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return '\n'.join(
        '  '.join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
        for r in rows
    )
