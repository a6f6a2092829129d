"""tools/analyze_logs.py and tools/summarize.py on work dirs laid out as mmengine 0.10.7 writes
them (LocalVisBackend's vis_data/scalars.json, LoggerHook's vis_data/<ts>.json, tools/test.py's
<ts>/<ts>.json)."""

import json

import pytest
from PIL import Image

from tests.utils import run_tool
from vitspec.runs.logs import series


def train_record(step, loss):
    return {
        'lr': 1e-3,
        'data_time': 0.07,
        'grad_norm': 1.4,
        'loss': loss,
        'decode.loss_ce': loss,
        'time': 4.2,
        'iter': step,
        'step': step,
    }


def write_run(work_dir, stamp, records, names=('scalars.json', '{stamp}.json')):
    """LocalVisBackend and LoggerHook write the same records to both files."""
    vis = work_dir / stamp / 'vis_data'
    vis.mkdir(parents=True)
    for name in names:
        (vis / name.format(stamp=stamp)).write_text(''.join(json.dumps(r) + '\n' for r in records))
    (vis / 'config.py').write_text('')
    (work_dir / stamp / f'{stamp}.log').write_text('')


def seg_dir(tmp_path, name, miou):
    wd = tmp_path / name
    write_run(
        wd,
        '20250101_000000',
        [train_record(s, 2.0 / s) for s in (10, 20, 30)]
        + [
            {
                'aAcc': 90.0,
                'mIoU': miou - 10,
                'mAcc': 70.0,
                'data_time': 0.01,
                'time': 0.3,
                'step': 30,
            }
        ],
    )
    write_run(
        wd,
        '20250102_000000',  # resumed at 30
        [train_record(s, 2.0 / s) for s in (40, 50)]
        + [{'aAcc': 95.0, 'mIoU': miou, 'mAcc': 80.0, 'data_time': 0.01, 'time': 0.3, 'step': 50}],
    )
    return wd


def depth_dir(tmp_path):
    wd = tmp_path / 'nyu'
    write_run(
        wd,
        '20250101_000000',
        [
            train_record(10, 0.5),
            {
                'abs_rel': 0.30147,
                'sq_rel': 0.48,
                'rmse': 1.19938,
                'rmse_log': 0.30,
                'log10': 0.1,
                'delta1': 0.46706,
                'delta2': 0.85,
                'delta3': 0.97,
                'silog': 20.3,
                'data_time': 0.01,
                'time': 0.36,
                'step': 10,
            },
        ],
    )
    return wd


def det_test_dir(tmp_path):
    wd = tmp_path / 'coco_test'
    (wd / '20250103_000000').mkdir(parents=True)
    (wd / '20250103_000000' / '20250103_000000.json').write_text(
        json.dumps(
            {
                'coco/bbox_mAP': 0.412,
                'coco/bbox_mAP_50': 0.633,
                'coco/segm_mAP': 0.367,
                'data_time': 0.01,
                'time': 0.5,
            }
        )
    )
    return wd


def test_series_joins_resumed_runs(tmp_path):
    wd = seg_dir(tmp_path, 'spec', 45.0)
    assert series(wd, 'loss')[0] == [10, 20, 30, 40, 50]
    assert series(wd, 'mIoU') == ([30, 50], [35.0, 45.0])


def test_series_reads_loggerhook_copy_without_scalars_json(tmp_path):
    write_run(tmp_path, '20250101_000000', [train_record(10, 0.5)], names=('{stamp}.json',))
    assert series(tmp_path, 'loss') == ([10], [0.5])


@pytest.mark.slow
def test_curves_png(tmp_path):
    out = tmp_path / 'curves.png'
    proc = run_tool(
        [
            'tools/analyze_logs.py',
            seg_dir(tmp_path, 'plain', 40.0),
            seg_dir(tmp_path, 'spec', 45.0),
            depth_dir(tmp_path),
            '--out',
            out,
        ]
    )
    assert '(loss, mIoU, rmse)' in proc.stdout
    with Image.open(out) as img:
        img.verify()
    with Image.open(out) as img:
        assert img.size == (3 * 500, 350)


@pytest.mark.slow
def test_curves_without_any_key_is_an_error(tmp_path):
    proc = run_tool(
        [
            'tools/analyze_logs.py',
            seg_dir(tmp_path, 'a', 1.0),
            '--keys',
            'nope',
            '--out',
            tmp_path / 'x.png',
        ],
        check=False,
    )
    assert proc.returncode != 0 and 'none of' in proc.stderr
    assert not (tmp_path / 'x.png').exists()


@pytest.mark.slow
def test_summary_table(tmp_path):
    out = tmp_path / 'results.md'
    unfinished = tmp_path / 'unfinished'
    write_run(unfinished, '20250101_000000', [train_record(10, 1.0)])
    proc = run_tool(
        [
            'tools/summarize.py',
            seg_dir(tmp_path, 'plain', 40.0),
            seg_dir(tmp_path, 'spec', 45.25),
            depth_dir(tmp_path),
            det_test_dir(tmp_path),
            unfinished,
            '--out',
            out,
        ]
    )
    assert out.read_text() == proc.stdout
    assert proc.stdout.splitlines() == [
        '| run | task | result | mIoU | mAcc | aAcc | box AP | mask AP | box AP50 | RMSE '
        '| AbsRel | δ1 |',
        '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
        '| plain | segmentation | val @ 50 | 40.00 | 80.00 | 95.00 | - | - | - | - | - | - |',
        '| spec | segmentation | val @ 50 | 45.25 | 80.00 | 95.00 | - | - | - | - | - | - |',
        '| nyu | depth | val @ 10 | - | - | - | - | - | - | 1.199 | 0.301 | 0.467 |',
        '| coco_test | detection | test | - | - | - | 41.2 | 36.7 | 63.3 | - | - | - |',
        '| unfinished | ? | no result | - | - | - | - | - | - | - | - | - |',
    ]
    assert 'unfinished: no validation or test result' in proc.stderr


@pytest.mark.slow
def test_summary_only_present_columns(tmp_path):
    proc = run_tool(['tools/summarize.py', depth_dir(tmp_path)])
    assert proc.stdout.splitlines()[0] == '| run | task | result | RMSE | AbsRel | δ1 |'
