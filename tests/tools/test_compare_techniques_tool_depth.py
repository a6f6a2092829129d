"""tools/compare_techniques.py end to end on depth at toy size: two depth configs that differ in
Token Graying are checked, "trained" (dist_train.sh replaced by a stand-in that logs what the
depth metric computes for a toy prediction) and tabled; the table shows the delta1 values."""

import importlib.util
from pathlib import Path

import numpy as np

from tests.tools.test_run_logs import train_record, write_run
from tests.utils import ROOT
from vitspec.evaluation.depth_errors import depth_errors

DEPTH = ROOT / 'configs/demo/lin4_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py'
GT = np.full(4, 2.0)
PRED = {'plain': np.array([2.0, 2.0, 2.0, 3.0]), 'graying': np.array([2.0, 2.0, 2.0, 2.2])}


def load_tool():
    spec = importlib.util.spec_from_file_location(
        'compare_techniques', ROOT / 'tools/compare_techniques.py'
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def fake_train(cmd, check):
    """dist_train.sh CONFIG GPUS --work-dir DIR: one training and one validation record."""
    assert cmd[0].endswith('dist_train.sh') and cmd[3] == '--work-dir'
    work_dir = Path(cmd[4])
    errors = depth_errors(PRED[work_dir.name], GT)
    record = dict({k: float(v) for k, v in errors.items()}, step=100)
    write_run(work_dir, '20250101_000000', [train_record(50, 0.4), record])


def test_depth_comparison_prints_delta1(tmp_path, monkeypatch, capsys):
    graying = tmp_path / 'graying.py'
    graying.write_text(
        f"_base_ = ['{DEPTH}']\n"
        "model = dict(backbone=dict(token_graying=dict(mode='dct', eps=0.7)))\n"
    )
    plain = tmp_path / 'plain.py'
    plain.write_text(f"_base_ = ['{DEPTH}']\n")
    tool = load_tool()
    monkeypatch.setattr(tool.subprocess, 'run', fake_train)
    tool.main([str(plain), str(graying), '--work-dir', str(tmp_path / 'runs')])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        'compare_techniques: the configs differ in '
        'model.backbone.token_graying.eps, model.backbone.token_graying.mode only'
    )
    header = lines[-3].split()
    assert header[:5] == ['run', 'iter', 'rmse', 'abs_rel', 'delta1']
    rows = {line.split()[0]: line.split() for line in lines[-2:]}
    assert rows['plain'][4] == '0.7500' and rows['graying'][4] == '1.000'  # 3 of 4, 4 of 4


def test_package_config_names_are_read_and_passed_on(tmp_path, monkeypatch, capsys):
    """vitspec::demo/x.py names (what train.py reads) are compared and trained, not a
    FileNotFoundError of Config.fromfile."""
    plain = 'vitspec::demo/fcn_specvit-tiny-p8-plain_2xb4-500it_demo-ade20k-128x128.py'
    spec = 'vitspec::demo/fcn_specvit-tiny-p8-spec_2xb4-500it_demo-ade20k-128x128.py'
    commands = []

    def record(cmd, check):
        commands.append(cmd)
        write_run(Path(cmd[4]), '20250101_000000', [train_record(50, 0.4), dict(mIoU=1.0, step=1)])

    tool = load_tool()
    monkeypatch.setattr(tool.subprocess, 'run', record)
    tool.main([plain, spec, '--work-dir', str(tmp_path / 'runs')])
    assert [cmd[1] for cmd in commands] == [plain, spec]
    assert capsys.readouterr().out.startswith('compare_techniques: the configs differ in ')
