"""Print the last validation metrics of several training work dirs side by side.

    python tools/compare_runs.py WORK_DIR [WORK_DIR ...] [--metrics mIoU mAcc aAcc]

Reads what mmengine logged (WORK_DIR/<timestamp>/vis_data/scalars.json, else LoggerHook's
<timestamp>.json beside it), newest run first; a work dir without any validation result is an
error.
"""

import argparse
import sys

from vitspec.runs.table import table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('work_dirs', nargs='+')
    parser.add_argument(
        '--metrics',
        nargs='+',
        help='the first one selects the record (default: every metric the first run logged)',
    )
    args = parser.parse_args(argv)
    try:
        print(table(args.work_dirs, args.metrics))
    except FileNotFoundError as exc:
        sys.exit(f'compare_runs: {exc}')


if __name__ == '__main__':
    main()
