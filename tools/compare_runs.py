"""Print the last validation metrics of several training work dirs side by side.

    python tools/compare_runs.py WORK_DIR [WORK_DIR ...] [--metrics mIoU mAcc aAcc]

Reads what mmengine's LocalVisBackend logged (WORK_DIR/<timestamp>/vis_data/scalars.json),
newest run first; a work dir without any validation result is an error.
"""
import argparse
import os.path as osp
import sys
from pathlib import Path

sys.path.insert(0, osp.dirname(osp.dirname(osp.abspath(__file__))))
from tools.run_logs import read_records  # noqa: E402


def last_validation(work_dir: Path, metric: str) -> dict:
    """The last logged record holding ``metric`` in the newest run of ``work_dir``."""
    for scalars in sorted(work_dir.glob('*/vis_data/scalars.json'), reverse=True):
        found = [r for r in read_records(scalars) if metric in r]
        if found:
            return found[-1]
    raise FileNotFoundError(f'{work_dir}: no validation record with {metric!r} '
                            f'(looked in */vis_data/scalars.json)')


def table(work_dirs, metrics) -> str:
    rows = [('run', 'iter', *metrics)]
    for wd in work_dirs:
        record = last_validation(Path(wd), metrics[0])
        rows.append((Path(wd).name, str(record.get('step', '?')),
                     *(f'{record[m]:.2f}' if m in record else '-' for m in metrics)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return '\n'.join('  '.join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths))) for r in rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('work_dirs', nargs='+')
    parser.add_argument('--metrics', nargs='+', default=['mIoU', 'mAcc', 'aAcc'],
                        help='the first one selects the record')
    args = parser.parse_args(argv)
    try:
        print(table(args.work_dirs, args.metrics))
    except FileNotFoundError as exc:
        sys.exit(f'compare_runs: {exc}')


if __name__ == '__main__':
    main()
