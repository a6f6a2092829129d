"""Reading what mmengine 0.10.7 writes into a work dir, for the log tools
(compare_runs, compare_techniques, analyze_logs, summarize): one reader, one fallback.

    WORK_DIR/<timestamp>/vis_data/scalars.json   LocalVisBackend: one JSON object a line,
                                                 training records (loss, lr, ..., iter, step)
                                                 and validation records (metrics, step)
    WORK_DIR/<timestamp>/vis_data/<timestamp>.json   LoggerHook: the same records
    WORK_DIR/<timestamp>/<timestamp>.json        tools/test.py: one JSON object, the test metrics
"""

import json
from pathlib import Path

from vitspec.evaluation.depth_errors import HEADLINE_METRICS

# The headline metrics of each task, as their metrics name them: mmseg 1.2.2's IoUMetric, mmdet
# 3.3.0's CocoMetric (prefix 'coco'), vitspec's DepthErrorMetric.
TASK_METRICS = {
    'segmentation': ['mIoU', 'mAcc', 'aAcc'],
    'detection': ['coco/bbox_mAP', 'coco/segm_mAP', 'coco/bbox_mAP_50'],
    'depth': list(HEADLINE_METRICS),
}


def scalar_files(work_dir: Path) -> list:
    """Each run's scalar log, oldest run first (a resumed run continues in a newer one)."""
    files = []
    for run in sorted(p for p in Path(work_dir).iterdir() if (p / 'vis_data').is_dir()):
        scalars = run / 'vis_data' / 'scalars.json'
        fallback = run / 'vis_data' / f'{run.name}.json'
        if scalars.is_file() or fallback.is_file():
            files.append(scalars if scalars.is_file() else fallback)
    return files


def read_records(path: Path) -> list:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def series(work_dir: Path, key: str) -> tuple:
    """(steps, values) of ``key`` over all runs of a work dir; a later run wins on a step."""
    by_step = {}
    for path in scalar_files(work_dir):
        for r in read_records(path):
            if key in r and isinstance(r[key], (int, float)):
                by_step[r['step']] = r[key]
    steps = sorted(by_step)
    return steps, [by_step[s] for s in steps]


def last_validation(work_dir: Path, metric: str) -> dict:
    """The last logged record holding ``metric`` in the newest run of ``work_dir`` that has one."""
    for path in reversed(scalar_files(work_dir)):
        found = [r for r in read_records(path) if metric in r]
        if found:
            return found[-1]
    raise FileNotFoundError(
        f'{work_dir}: no validation record with {metric!r} (looked in '
        '*/vis_data/scalars.json, else */vis_data/<timestamp>.json)'
    )


# Keys mmengine writes into a validation record beside the metrics.
NOT_METRICS = frozenset({'step', 'iter', 'epoch', 'time', 'data_time', 'memory'})


def is_validation(record: dict) -> bool:
    """A validation record: no loss and no learning rate (training records carry both)."""
    return 'lr' not in record and not any('loss' in key for key in record)


def validation_metrics(work_dir: Path) -> list:
    """The names of the metrics in the newest validation record of ``work_dir``, as the
    evaluator emitted them: the task's headline metrics (TASK_METRICS) first, then the rest in
    the order logged."""
    for path in reversed(scalar_files(work_dir)):
        records = [r for r in read_records(path) if is_validation(r)]
        if records:
            names = [
                k
                for k, v in records[-1].items()
                if k not in NOT_METRICS and isinstance(v, (int, float))
            ]
            headline = [m for m in TASK_METRICS.get(task_of(records[-1]), []) if m in names]
            return headline + [n for n in names if n not in headline]
    raise FileNotFoundError(
        f'{work_dir}: no validation record (looked in */vis_data/scalars.json, else '
        '*/vis_data/<timestamp>.json)'
    )


def test_result_file(work_dir: Path):
    """The newest tools/test.py result file (WORK_DIR/<ts>/<ts>.json), or None."""
    for run in sorted(Path(work_dir).iterdir(), reverse=True):
        result = run / f'{run.name}.json'
        if result.is_file():
            return result
    return None


def test_results(work_dir: Path) -> dict:
    """The newest tools/test.py result (WORK_DIR/<ts>/<ts>.json), or {}."""
    result = test_result_file(work_dir)
    return json.loads(result.read_text()) if result else {}


def task_of(record: dict) -> str:
    for task, metrics in TASK_METRICS.items():
        if metrics[0] in record:
            return task
    return None
