"""tools/compare_techniques.py on depth: the demo depth config and its Token Graying variant are
comparable, and the results table shows the metrics the depth evaluator logged (delta1, not a
name it never emits), with digits enough for 1 mm of RMSE."""

from mmengine.config import Config

from tests.tools.test_run_logs import train_record, write_run
from tests.utils import ROOT
from vitspec.runs.table import format_metric, table
from vitspec.runs.technique_comparison import check_comparable

DEPTH = ROOT / 'configs/demo/lin4_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py'


def depth_run(work_dir, rmse, delta1):
    record = dict(abs_rel=0.10312, rmse=rmse, delta1=delta1, silog=12.5, time=0.3, step=100)
    write_run(work_dir, '20250101_000000', [train_record(50, 0.4), record])
    return work_dir


def test_depth_configs_that_differ_in_token_graying_are_comparable():
    plain = Config.fromfile(DEPTH)
    graying = Config.fromfile(DEPTH)
    graying.model.backbone.token_graying = dict(mode='dct', eps=0.7)
    assert check_comparable(plain, graying, ('plain', 'graying')) == [
        'model.backbone.token_graying.eps',
        'model.backbone.token_graying.mode',
    ]


def test_depth_table_shows_the_logged_metrics_with_enough_digits(tmp_path):
    runs = [
        depth_run(tmp_path / 'plain', 0.4512, 0.8734),
        depth_run(tmp_path / 'graying', 0.4431, 0.8791),
    ]
    lines = table(runs).splitlines()
    assert lines[0].split() == ['run', 'iter', 'rmse', 'abs_rel', 'delta1', 'silog']
    assert lines[1].split() == ['plain', '100', '0.4512', '0.1031', '0.8734', '12.50']
    assert lines[2].split() == ['graying', '100', '0.4431', '0.1031', '0.8791', '12.50']


def test_a_metric_no_run_logged_is_named_with_those_logged(tmp_path):
    runs = [depth_run(tmp_path / 'plain', 0.45, 0.87)]
    last = table(runs, ['rmse', 'a1']).splitlines()[-1]
    assert last == 'not logged by any run: a1 (logged: abs_rel, delta1, rmse, silog)'


def test_metric_digits():
    assert [format_metric(v) for v in (45.234, 0.4123, 1.19938, 0.098701, 0.0, 1234.5)] == [
        '45.23',
        '0.4123',
        '1.199',
        '0.09870',
        '0',
        '1234.50',
    ]
