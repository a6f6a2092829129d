"""tools/compare_runs.py: the newest run's last validation record, side by side."""

import json

import pytest

from tests.utils import run_tool


def write_run(work_dir, stamp, records):
    path = work_dir / stamp / 'vis_data' / 'scalars.json'
    path.parent.mkdir(parents=True)
    path.write_text(''.join(json.dumps(r) + '\n' for r in records))


@pytest.mark.slow
def test_prints_last_validation_of_newest_run(tmp_path):
    plain, spec = tmp_path / 'plain', tmp_path / 'spec'
    write_run(plain, '20250101_000000', [{'mIoU': 1.0, 'step': 10}])
    write_run(
        plain,
        '20250102_000000',
        [{'loss': 0.3, 'step': 5}, {'mIoU': 40.0, 'step': 500}, {'loss': 0.2, 'step': 510}],
    )
    write_run(spec, '20250102_000000', [{'mIoU': 42.5, 'aAcc': 80.0, 'step': 500}])
    out = run_tool(['tools/compare_runs.py', plain, spec, '--metrics', 'mIoU', 'aAcc']).stdout
    assert out.split('\n')[1:3] == ['plain   500  40.00      -', 'spec    500  42.50  80.00']


@pytest.mark.slow
def test_work_dir_without_validation_is_an_error(tmp_path):
    write_run(tmp_path / 'run', 'x', [{'loss': 1.0, 'step': 1}])
    proc = run_tool(['tools/compare_runs.py', tmp_path / 'run'], check=False)
    assert proc.returncode != 0 and 'no validation record' in proc.stderr
