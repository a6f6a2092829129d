"""tools/gpu_check.sh (tools/gpu_check.py) and vitspec.diagnostics.gpu_check: the no-GPU answer,
the loss comparison, timing summary and report on made-up numbers, and its runs with --device cpu:
the whole check with stand-in runs, and the multi-process branch for real on 2 CPU processes
(gloo). The op comparison has its own tests (tests/mmcv_ops/test_device_parity.py)."""

import json
import math
import sys
import warnings

import pytest

from tests.utils import ROOT, make_demo_data, run_tool
from tools import gpu_check as tool
from tools.train import parse_args
from vitspec.diagnostics import gpu_check as gc
from vitspec.mmcv_ops import device_parity as oc
from vitspec.mmcv_ops import installed
from vitspec.mmcv_ops.installed import describe_ops
from vitspec.runs.runner import config_from_args, enable_amp


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
    cmd = tool.train_command('depth', precision, 1, tmp_path, iters=7)
    assert cmd[1] == str(ROOT / 'tools' / 'train.py')
    args = parse_args(cmd[2:])
    cfg = config_from_args(args)
    if args.amp:
        enable_amp(cfg, args.amp)
    assert cfg.train_cfg.max_iters == 7 and cfg.train_cfg.val_interval > 7
    assert cfg.default_hooks.logger.interval == 1 and cfg.work_dir == str(tmp_path)
    assert cfg.optim_wrapper.get('dtype') == dtype


def test_several_gpus_run_through_torchrun(tmp_path):
    cmd = tool.train_command('segmentation', 'bf16', 4, tmp_path, iters=5)
    assert cmd[:4] == [
        'bash',
        str(ROOT / 'tools' / 'dist_train.sh'),
        tool.CONFIGS['segmentation'],
        '4',
    ]
    assert cmd[4:8] == ['--work-dir', str(tmp_path), '--amp', 'bf16']


def test_a_data_root_reaches_every_dataloader(tmp_path):
    cmd = tool.train_command('detection', 'fp32', 2, tmp_path / 'work', iters=3, data_root=tmp_path)
    cfg = config_from_args(parse_args([cmd[2], *cmd[4:]]))
    for split in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        assert cfg[split].dataset.data_root == str(tmp_path / 'coco')
    default = tool.train_command('detection', 'fp32', 1, tmp_path, iters=3)
    assert not any('.dataset.data_root=' in arg for arg in default)


def test_one_process_then_every_gpu_or_two_cpu_processes(monkeypatch):
    monkeypatch.setattr(gc.torch.cuda, 'device_count', lambda: 4)
    assert gc.process_counts('cuda') == [1, 4]
    assert gc.process_counts('cpu') == [1, 2]
    assert gc.process_counts('cuda', processes=1) == [1]
    monkeypatch.setattr(gc.torch.cuda, 'device_count', lambda: 1)
    assert gc.process_counts('cuda') == [1]
    assert gc.process_counts('cpu', processes=3) == [1, 3]


def test_ops_without_kernels_for_the_device_are_a_failed_check(monkeypatch):
    monkeypatch.setattr(gc, 'mmcv_ops_have_kernels', lambda device: device != 'cuda')
    monkeypatch.setattr(gc, 'ops_check_isolated', lambda device: [gc.OpCheck('nms', True, '')])
    (check,) = gc.ops_checks('cuda')
    assert not check.ok and "mmcv's compiled ops are CPU-only" in check.detail
    assert gc.ops_checks('cpu') == [gc.OpCheck('nms', True, '')]


def test_the_report_names_the_kernels_in_use(monkeypatch, tmp_path):
    assert 'PyTorch / torchvision kernels' in describe_ops() or 'compiled ops' in describe_ops()
    monkeypatch.setattr(installed, 'ops_kernels', lambda: installed.COMPILED)
    library = tmp_path / '_ext.so'
    library.write_bytes(b'\x7fELF.nv_fatbin')
    monkeypatch.setattr(installed, 'compiled_ops_library', lambda: library)
    assert describe_ops() == f"mmcv's compiled ops with CUDA kernels ({library})"
    monkeypatch.setattr(installed, 'ops_kernels', lambda: installed.TORCHVISION)
    assert describe_ops().startswith("vitspec's PyTorch / torchvision kernels")


def stand_in_runs(monkeypatch, bf16_loss):
    """Runs that return made-up losses at once, recording how they were asked for."""
    runs = []

    def run_training(task, precision, processes, work_dir, iters, device, data_root):
        runs.append((task, processes, precision, work_dir.name, iters, device, data_root))
        loss = bf16_loss if precision == 'bf16' else 1.0
        return gc.RunResult({1: 2.0, 2: loss}, iters_per_s=3.0, peak_memory_mb=float('nan'))

    monkeypatch.setattr(tool, 'run_training', run_training)
    return runs


def test_the_whole_check_runs_on_cpu(monkeypatch, tmp_path, capsys):
    """main with --device cpu: the real op comparison (in this process) and real CPU probe of
    mmcv's kernels, demo data for the tasks asked, and every run of the grid, 1 and 2 processes;
    the training runs themselves are stand-ins here (the next test runs them)."""
    monkeypatch.setattr(gc, 'ops_check_isolated', oc.ops_against_cpu)
    written = []
    monkeypatch.setattr(tool, 'write_demo_data', lambda out, names: written.append((out, names)))
    runs = stand_in_runs(monkeypatch, bf16_loss=1.01)
    argv = ['--device', 'cpu', '--tasks', 'depth', '--precisions', 'fp32', 'bf16', '--iters', '2']
    argv += ['--work-dir', str(tmp_path), '--data-root', str(tmp_path / 'demo')]
    assert tool.main(argv) == 0
    out = capsys.readouterr().out
    assert 'mmcv nms: ok' in out and 'mmcv roi_align: ok' in out
    assert f'mmcv ops: {describe_ops()}' in out
    assert written == [(tmp_path / 'demo', ['nyu'])]
    assert [run[:4] for run in runs] == [
        ('depth', 1, 'fp32', 'depth-1cpu-fp32'),
        ('depth', 1, 'bf16', 'depth-1cpu-bf16'),
        ('depth', 2, 'fp32', 'depth-2cpu-fp32'),
        ('depth', 2, 'bf16', 'depth-2cpu-bf16'),
    ]
    assert {run[4:] for run in runs} == {(2, 'cpu', tmp_path / 'demo')}
    assert '| task | CPU processes | precision |' in out
    assert '| depth | 2 | bf16 | 3.00 | nan | agree (worst 1.0% over 2 it' in out


def test_losses_that_differ_fail_the_check(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(gc, 'ops_check_isolated', oc.ops_against_cpu)
    monkeypatch.setattr(tool, 'write_demo_data', lambda out, names: None)
    stand_in_runs(monkeypatch, bf16_loss=1.5)
    argv = ['--device', 'cpu', '--tasks', 'depth', '--precisions', 'fp32', 'bf16']
    assert tool.main([*argv, '--processes', '1', '--work-dir', str(tmp_path)]) == 1
    assert '| depth | 1 | bf16 | 3.00 | nan | DIFFER' in capsys.readouterr().out


@pytest.mark.slow
def test_the_multi_process_runs_train_on_two_cpu_processes(tmp_path):
    """gpu_check's multi-GPU branch as it runs on GPUs (torchrun), here with 2 ranks on the CPU
    (gloo): the demo segmentation, 2 iterations (about 45 s on 2 busy cores)."""
    make_demo_data(tmp_path / 'demo', 'ade20k', 8, 2)

    def train(work_dir):
        rows, failed = tool.train_runs(
            'cpu', [2], ['segmentation'], ['fp32'], work_dir, iters=2, data_root=tmp_path / 'demo'
        )
        return rows, failed, (work_dir / 'segmentation-2cpu-fp32' / 'output.log').read_text()

    rows, failed, log = train(tmp_path / 'first')
    if failed:
        # Twice on 2 busy cores (2026-12-06) a rank aborted at exit after a run that succeeded
        # (SIGABRT, see vitspec.runs.runner.shutdown_distributed). Should that come back, one
        # more try, and the first failure's reason in the warnings.
        warnings.warn(f'2-process run failed, tried again: {rows}\n{log[-3000:]}')
        rows, failed, log = train(tmp_path / 'second')
    assert not failed, f'{rows}\n{log[-6000:]}'
    ((task, processes, precision, result, _),) = rows
    assert (task, processes, precision) == ('segmentation', 2, 'fp32')
    assert sorted(result.losses) == [1, 2] and result.iters_per_s > 0
    assert 'distributed on CPU with gloo' in log
    assert 'GPU number: 2' in log  # mmengine's name for the world size


def test_a_failed_run_is_reported_by_its_exception_and_log(monkeypatch, tmp_path):
    crash = [sys.executable, '-c', "print('Iter(train) [1/2]'); raise KeyError('img_path')"]
    monkeypatch.setattr(tool, 'train_command', lambda *args: crash)
    result = tool.run_training('segmentation', 'fp32', 1, tmp_path / 'run', 2, 'cpu')
    assert result == f"exit 1: KeyError: 'img_path' (see {tmp_path / 'run'}/output.log)"
    assert 'Iter(train) [1/2]' in (tmp_path / 'run' / 'output.log').read_text()
