"""tools/gpu_check.sh and vitspec.apis.gpu_check: the no-GPU answer, and the loss comparison,
timing summary and report on made-up numbers (the GPU runs themselves need a GPU)."""

import json
import math
import sys

import pytest

from tests.utils import ROOT, run_tool
from tools.train import parse_args
from vitspec.apis import gpu_check as gc
from vitspec.apis.runner import config_from_args, enable_amp


def records(losses, times, memory=None):
    return [
        dict(step=i + 1, loss=loss, time=t, **({'memory': memory[i]} if memory else {}))
        for i, (loss, t) in enumerate(zip(losses, times))
    ]


@pytest.mark.slow
def test_without_a_gpu_it_says_so_and_exits_0():
    proc = run_tool(['tools/gpu_check.sh'], env={'CUDA_VISIBLE_DEVICES': ''}, timeout=300)
    assert proc.returncode == 0
    assert 'no GPU visible' in proc.stdout and 'Run it on a GPU machine' in proc.stdout


def test_losses_within_tolerance_agree():
    fp32 = {1: 2.0, 2: 1.5, 3: 1.2}
    bf16 = {1: 2.06, 2: 1.47, 3: 1.2}
    agreement = gc.losses_agree(fp32, bf16, rtol=0.05)
    assert agreement.ok and agreement.iterations == 3
    assert agreement.worst_relative == pytest.approx(0.03)


def test_a_loss_off_by_more_than_the_tolerance_differs():
    fp32 = {1: 2.0, 2: 1.5, 3: 1.2}
    fp16 = {1: 2.0, 2: 1.5, 3: 1.5}
    agreement = gc.losses_agree(fp32, fp16, rtol=0.02)
    assert not agreement.ok and agreement.worst_relative == pytest.approx(0.25)


def test_absolute_tolerance_for_losses_near_zero_and_only_common_iterations():
    fp32 = {1: 0.0004, 2: 0.0002, 5: 9.0}
    amp = {1: 0.0010, 2: 0.0001, 3: 123.0}
    agreement = gc.losses_agree(fp32, amp, rtol=0.02, atol=1e-3)
    assert agreement.ok and agreement.iterations == 2
    assert not gc.losses_agree(fp32, {7: 1.0}, rtol=0.02).ok


def test_speed_leaves_out_warmup_and_memory_is_the_peak():
    logged = records(
        losses=[3.0, 2.5, 2.0, 1.8, 1.7, 1.6],
        times=[5.0, 1.0, 1.0, 0.25, 0.2, 0.5],
        memory=[100, 300, 250, 250, 260, 250],
    )
    logged.insert(3, dict(step=3, mIoU=0.5))  # an evaluation record is not an iteration
    result = gc.summarize_scalars(logged, warmup=3)
    assert result.iters_per_s == pytest.approx(1 / 0.25)
    assert result.peak_memory_mb == 300
    assert result.losses == {1: 3.0, 2: 2.5, 3: 2.0, 4: 1.8, 5: 1.7, 6: 1.6}


def test_speed_of_a_run_shorter_than_its_warmup_and_without_memory():
    result = gc.summarize_scalars(records([1.0, 0.9], [0.5, 0.3]), warmup=3)
    assert result.iters_per_s == pytest.approx(1 / 0.4)
    assert math.isnan(result.peak_memory_mb)
    with pytest.raises(ValueError, match='no training iterations'):
        gc.summarize_scalars([dict(step=1, mIoU=0.3)])


def test_run_is_read_from_the_newest_scalars_file(tmp_path):
    for stamp, loss in (('20250101_000000', 9.0), ('20250102_000000', 1.0)):
        log = tmp_path / stamp / 'vis_data' / 'scalars.json'
        log.parent.mkdir(parents=True)
        log.write_text('\n'.join(json.dumps(r) for r in records([loss], [0.1], [42])) + '\n')
    assert gc.read_run(tmp_path).losses == {1: 1.0}
    with pytest.raises(FileNotFoundError):
        gc.read_run(tmp_path / 'nothing')


def test_report_lists_every_run_with_its_verdict():
    fast = gc.RunResult({1: 1.0}, iters_per_s=12.345, peak_memory_mb=1536.4)
    rows = [
        ('segmentation', 1, 'fp32', fast, None),
        ('segmentation', 1, 'fp16', fast, gc.Agreement(True, 0.004, 20)),
        ('segmentation', 1, 'bf16', fast, gc.Agreement(False, 0.31, 20)),
        ('detection', 2, 'bf16', 'exit 1: MmcvOpsError', None),
        ('depth', 1, 'fp16', fast, None),
    ]
    lines = gc.format_report(rows).splitlines()
    assert lines[0] == '| task | GPUs | precision | it/s | peak memory MB | losses vs fp32 |'
    assert lines[2] == '| segmentation | 1 | fp32 | 12.35 | 1536 | reference |'
    assert lines[3] == (
        '| segmentation | 1 | fp16 | 12.35 | 1536 | agree (worst 0.4% over 20 it, '
        'tolerance 2% + 0.001) |'
    )
    assert 'DIFFER (worst 31.0% over 20 it, tolerance 5% + 0.001)' in lines[4]
    assert lines[5] == '| detection | 2 | bf16 | failed: exit 1: MmcvOpsError | | |'
    assert lines[6].endswith('| no fp32 run to compare with |')


@pytest.mark.parametrize(
    'precision, dtype', [('fp32', None), ('fp16', 'float16'), ('bf16', 'bfloat16')]
)
def test_one_gpu_command_is_a_short_train_run_in_that_precision(tmp_path, precision, dtype):
    cmd = gc.train_command(gc.CONFIGS['depth'], precision, 1, tmp_path, iters=7)
    assert cmd[1] == str(ROOT / 'tools' / 'train.py')
    args = parse_args(cmd[2:])
    cfg = config_from_args(args)
    if args.amp:
        enable_amp(cfg, args.amp)
    assert cfg.train_cfg.max_iters == 7 and cfg.train_cfg.val_interval > 7
    assert cfg.default_hooks.logger.interval == 1 and cfg.work_dir == str(tmp_path)
    assert cfg.optim_wrapper.get('dtype') == dtype


def test_several_gpus_run_through_torchrun(tmp_path):
    cmd = gc.train_command(gc.CONFIGS['segmentation'], 'bf16', 4, tmp_path, iters=5)
    assert cmd[:4] == [
        'bash',
        str(ROOT / 'tools' / 'dist_train.sh'),
        gc.CONFIGS['segmentation'],
        '4',
    ]
    assert cmd[4:8] == ['--work-dir', str(tmp_path), '--amp', 'bf16']


def test_ops_comparison_runs_on_cpu():
    """The comparison itself (what the GPU run does, with CPU on both sides here)."""
    checks = gc.ops_against_cpu(device='cpu')
    assert [c.name for c in checks] == ['nms', 'roi_align'] and all(c.ok for c in checks)
    assert 'boxes kept' in checks[0].detail


def test_a_crash_in_the_op_check_is_a_failed_line_not_the_end(tmp_path):
    crash = [sys.executable, '-c', 'import os, signal; os.kill(os.getpid(), signal.SIGSEGV)']
    checks = gc.ops_check_isolated(crash)
    assert len(checks) == 1 and not checks[0].ok
    assert 'signal SIGSEGV' in checks[0].detail


def test_the_op_check_child_reports_as_json(monkeypatch, capsys, tmp_path):
    compare = gc.ops_against_cpu
    monkeypatch.setattr(gc, 'ops_against_cpu', lambda: compare(device='cpu'))
    assert gc.main(['--ops-json']) == 0
    (tmp_path / 'out.txt').write_text(capsys.readouterr().out)
    child = [sys.executable, '-c', f'print(open({str(tmp_path / "out.txt")!r}).read())']
    checks = gc.ops_check_isolated(child)
    assert [c.name for c in checks] == ['nms', 'roi_align'] and all(c.ok for c in checks)
