"""The final metrics of a finished run, read from its work dir as mmengine 0.10.7 wrote it: the
newest test result (<ts>/<ts>.json, as tools/test.py writes it), else the validation record
logged at the end of training (the step of the dumped config's train_cfg.max_iters, or
max_epochs)."""

import json
from pathlib import Path
from typing import NamedTuple

from vitspec.errors import NoFinalMetrics
from vitspec.runs.logs import is_validation, read_records, scalar_files, test_result_file


class FinalMetrics(NamedTuple):
    metrics: dict
    origin: str  # where they were read, for the reader of a comparison


def final_metrics(work_dir, cfg) -> FinalMetrics:
    """The metrics of ``work_dir``; ``cfg``, the config dumped there, tells where training ends."""
    work_dir = Path(work_dir)
    result = test_result_file(work_dir)
    if result is not None:
        return FinalMetrics(json.loads(result.read_text()), f'tools/test.py {result.parent.name}')
    records = [r for path in scalar_files(work_dir) for r in read_records(path) if is_validation(r)]
    if not records:
        raise NoFinalMetrics(
            f'{work_dir}: no final metrics: no tools/test.py result (<timestamp>/<timestamp>.json) '
            'and no validation record (<timestamp>/vis_data/scalars.json)'
        )
    unit, end = training_end(cfg)
    last = records[-1]
    if end is not None and last.get('step') != end:
        raise NoFinalMetrics(
            f'{work_dir}: no final metrics: training has not finished (its last validation is '
            f'at {unit} {last.get("step")}, training ends at {end}) and no tools/test.py result'
        )
    return FinalMetrics(last, f'validation at {unit} {last.get("step")}')


def training_end(cfg) -> tuple:
    """('iter', max_iters) or ('epoch', max_epochs) of ``cfg``'s train loop; (..., None) if
    the config has none."""
    train_cfg = cfg.get('train_cfg') or {}
    if 'max_epochs' in train_cfg:
        return 'epoch', train_cfg['max_epochs']
    return 'iter', train_cfg.get('max_iters')
