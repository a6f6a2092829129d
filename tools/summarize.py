"""A Markdown table of the final mIoU / AP / RMSE of a set of work dirs.

    python tools/summarize.py WORK_DIR [WORK_DIR ...] [--out results.md]

Per work dir: the last validation record of its newest run that holds a task's headline metric
(the rule of tools/compare_runs.py), else the newest tools/test.py result in it. Segmentation: mIoU,
mAcc, aAcc (%); detection: box / mask AP and box AP50 (COCO's 0-1 values x 100); depth: RMSE,
AbsRel, delta1. Columns no run has are left out. A work dir without a result (still training,
crashed) gets a row saying so; none with a result at all is an error.
"""

import argparse
import sys
from pathlib import Path

from vitspec.errors import OutputPathError
from vitspec.fileio import add_output, atomic_write_bytes, claim_outputs
from vitspec.runs.logs import TASK_METRICS, last_validation, task_of, test_results

COLUMNS = [  # (metric key, header, scale, digits)
    ('mIoU', 'mIoU', 1, 2),
    ('mAcc', 'mAcc', 1, 2),
    ('aAcc', 'aAcc', 1, 2),
    ('coco/bbox_mAP', 'box AP', 100, 1),
    ('coco/segm_mAP', 'mask AP', 100, 1),
    ('coco/bbox_mAP_50', 'box AP50', 100, 1),
    ('rmse', 'RMSE', 1, 3),
    ('abs_rel', 'AbsRel', 1, 3),
    ('delta1', 'δ1', 1, 3),
]


def final_result(work_dir: Path) -> tuple:
    """(task, 'val @ iter N' or 'test', record) for a work dir."""
    for task, metrics in TASK_METRICS.items():
        try:
            record = last_validation(work_dir, metrics[0])
        except FileNotFoundError:
            continue
        return task, f'val @ {record.get("step", "?")}', record
    record = test_results(work_dir)
    if task_of(record):
        return task_of(record), 'test', record
    raise FileNotFoundError(
        f'{work_dir}: no validation or test result with any of '
        + ', '.join(m[0] for m in TASK_METRICS.values())
    )


def markdown_table(work_dirs) -> str:
    results = []
    for wd in work_dirs:
        try:
            results.append((Path(wd).name, *final_result(Path(wd))))
        except FileNotFoundError as exc:
            print(f'summarize: {exc}', file=sys.stderr)
            results.append((Path(wd).name, '?', 'no result', {}))
    if all(not r[3] for r in results):
        raise FileNotFoundError('no work dir holds a validation or test result')
    columns = [c for c in COLUMNS if any(c[0] in r[3] for r in results)]
    lines = [
        '| run | task | result | ' + ' | '.join(c[1] for c in columns) + ' |',
        '|---|---|---|' + '---:|' * len(columns),
    ]
    for name, task, source, record in results:
        cells = [
            f'{record[key] * scale:.{digits}f}' if key in record else '-'
            for key, _, scale, digits in columns
        ]
        lines.append(f'| {name} | {task} | {source} | ' + ' | '.join(cells) + ' |')
    return '\n'.join(lines) + '\n'


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('work_dirs', nargs='+')
    add_output(parser, '--out', suffixes=('.md',), help='also write the table to this file')
    args = parser.parse_args(argv)
    try:
        claim_outputs(args, inputs=args.work_dirs)
        table = markdown_table(args.work_dirs)
    except (FileNotFoundError, OutputPathError) as exc:
        sys.exit(f'summarize: {exc}')
    print(table, end='')
    if args.out:
        atomic_write_bytes(table.encode(), args.out)
        print(f'wrote {args.out}', file=sys.stderr)  # stdout: the table alone


if __name__ == '__main__':
    main()
