"""tools/gpu_check.sh: the first command on a GPU machine.

It compares mmcv's CUDA ops (NMS, RoIAlign forward and backward) with their CPU results, then
trains a few iterations of the demo segmentation, depth and COCO configs on one GPU in fp32,
fp16 and bf16 (and on all visible GPUs with torchrun when there are several), and prints per
run: iterations/s, peak GPU memory, and whether the losses agree with the fp32 run of the same
config and GPU count. Without a GPU it says so and exits 0.
"""

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import torch
from mmcv.ops import nms, roi_align

from vitspec.demo.cli import main as write_demo_data
from vitspec.engine.mmcv_ops_check import FIX, mmcv_ops_have_cuda

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = {
    'segmentation': 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py',
    'depth': 'configs/demo/lin4_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py',
    'detection': 'configs/demo/mask-rcnn_specvit-tiny-p8_simplefpn_2xb4-800it_demo-coco-160x160.py',
}
DEMO_DATASETS = ('ade20k', 'nyu', 'coco')
PRECISIONS = ('fp32', 'fp16', 'bf16')
# Loss of a mixed-precision run against fp32 at each logged iteration: |a - b| <= rtol * |b| +
# LOSS_ATOL. float16 rounds to 11 significant bits, bfloat16 to 8, and the runs drift apart a
# little with every update, hence the few iterations.
LOSS_RTOL = {'fp16': 0.02, 'bf16': 0.05}
LOSS_ATOL = 1e-3
WARMUP_ITERS = 3  # left out of iterations/s: CUDA context, cuDNN autotuning, allocator growth


class OpCheck(NamedTuple):
    name: str
    ok: bool
    detail: str


class RunResult(NamedTuple):
    losses: dict  # iteration -> loss
    iters_per_s: float
    peak_memory_mb: float


class Agreement(NamedTuple):
    ok: bool
    worst_relative: float  # the largest |a - b| / |b| over the compared iterations
    iterations: int


def ops_against_cpu(device='cuda', seed=0) -> list:
    """mmcv's NMS and RoIAlign on `device` against the same ops on CPU."""
    gen = torch.Generator().manual_seed(seed)
    xy = torch.rand(300, 2, generator=gen) * 100
    boxes = torch.cat([xy, xy + 5 + torch.rand(300, 2, generator=gen) * 30], dim=1)
    scores = torch.rand(300, generator=gen)
    _, keep_cpu = nms(boxes, scores, iou_threshold=0.5)
    _, keep_dev = nms(boxes.to(device), scores.to(device), iou_threshold=0.5)
    same_keep = torch.equal(keep_cpu.sort().values, keep_dev.cpu().sort().values)
    checks = [OpCheck('nms', same_keep, f'{len(keep_dev)} of 300 boxes kept')]

    features = torch.randn(2, 8, 32, 32, generator=gen)
    batch = torch.randint(0, 2, (40, 1), generator=gen).float()
    rois = torch.cat([batch, boxes[:40] * 1.5], dim=1)  # image pixels; features: stride 8
    outputs, grads = [], []
    for dev in ('cpu', device):
        x = features.to(dev).requires_grad_()
        out = roi_align(x, rois.to(dev), (7, 7), spatial_scale=1 / 8, sampling_ratio=2)
        out.pow(2).sum().backward()
        outputs.append(out.detach().cpu())
        grads.append(x.grad.cpu())
    forward = (outputs[0] - outputs[1]).abs().max().item()
    backward = (grads[0] - grads[1]).abs().max().item()
    checks.append(
        OpCheck(
            'roi_align',
            forward <= 1e-4 and backward <= 1e-3,
            f'max difference forward {forward:.1e}, backward {backward:.1e}',
        )
    )
    return checks


def ops_check_isolated(command=None) -> list:
    """`ops_against_cpu` in a child process, so that a crash inside mmcv's compiled ops (seen:
    SIGSEGV in mmcv 2.1.0 built with CUDA 13.0) is one failed line of the report, not the end
    of the check. ``command``: the child's command line (default: this module's --ops-json)."""
    command = command or [sys.executable, '-m', 'vitspec.apis.gpu_check', '--ops-json']
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        code = proc.returncode
        ended = f'signal {signal.Signals(-code).name}' if code < 0 else f'exit {code}'
        last = ' '.join((proc.stderr.strip() or proc.stdout.strip()).splitlines()[-1:])
        return [OpCheck('ops', False, f'the check process ended with {ended}: {last[:200]}')]
    return [OpCheck(*check) for check in json.loads(proc.stdout.strip().splitlines()[-1])]


def summarize_scalars(records, warmup=WARMUP_ITERS) -> RunResult:
    """Losses, iterations/s (median iteration time after `warmup`) and peak memory (MB) from
    the training records of mmengine's scalars.json."""
    train = [r for r in records if 'loss' in r and 'time' in r]
    if not train:
        raise ValueError('no training iterations were logged')
    times = [r['time'] for r in train if r['step'] > warmup] or [r['time'] for r in train]
    memory = [r['memory'] for r in train if 'memory' in r]
    return RunResult(
        losses={r['step']: r['loss'] for r in train},
        iters_per_s=1.0 / statistics.median(times),
        peak_memory_mb=max(memory) if memory else float('nan'),
    )


def read_run(work_dir: Path) -> RunResult:
    logs = sorted(Path(work_dir).glob('*/vis_data/scalars.json'))
    if not logs:
        raise FileNotFoundError(f'no scalars.json under {work_dir}')
    lines = logs[-1].read_text().splitlines()
    return summarize_scalars([json.loads(line) for line in lines if line.strip()])


def losses_agree(reference: dict, other: dict, rtol: float, atol: float = LOSS_ATOL):
    """Whether `other`'s loss stays within tolerance of `reference`'s at every iteration both
    logged."""
    steps = sorted(set(reference) & set(other))
    if not steps:
        return Agreement(False, float('nan'), 0)
    ok, worst = True, 0.0
    for step in steps:
        ref, got = reference[step], other[step]
        diff = abs(got - ref)
        ok = ok and diff <= rtol * abs(ref) + atol
        worst = max(worst, diff / abs(ref) if ref else float('inf'))
    return Agreement(ok, worst, len(steps))


def format_report(rows) -> str:
    """A table of runs; each row: task, gpus, precision, RunResult or an error text, and
    the Agreement with fp32 (None for fp32 itself)."""
    header = '| task | GPUs | precision | it/s | peak memory MB | losses vs fp32 |'
    lines = [header, '|---|---|---|---|---|---|']
    for task, gpus, precision, result, agreement in rows:
        if isinstance(result, str):
            lines.append(f'| {task} | {gpus} | {precision} | failed: {result} | | |')
            continue
        if precision == 'fp32':
            verdict = 'reference'
        elif agreement is None:
            verdict = 'no fp32 run to compare with'
        else:
            rtol = LOSS_RTOL[precision]
            word = 'agree' if agreement.ok else 'DIFFER'
            verdict = (
                f'{word} (worst {agreement.worst_relative:.1%} over {agreement.iterations} it, '
                f'tolerance {rtol:.0%} + {LOSS_ATOL:g})'
            )
        lines.append(
            f'| {task} | {gpus} | {precision} | {result.iters_per_s:.2f} | '
            f'{result.peak_memory_mb:.0f} | {verdict} |'
        )
    return '\n'.join(lines)


def train_command(config, precision, gpus, work_dir, iters) -> list:
    options = [
        f'train_cfg.max_iters={iters}',
        f'train_cfg.val_interval={iters + 1}',  # no evaluation: training steps only
        'default_hooks.logger.interval=1',
        f'default_hooks.checkpoint.interval={iters + 1}',
        'default_hooks.checkpoint.save_last=False',
        'randomness.seed=0',
    ]
    amp = [] if precision == 'fp32' else ['--amp', precision]
    args = [config, '--work-dir', str(work_dir), *amp, '--cfg-options', *options]
    if gpus == 1:
        return [sys.executable, str(ROOT / 'tools' / 'train.py'), *args]
    return ['bash', str(ROOT / 'tools' / 'dist_train.sh'), args[0], str(gpus), *args[1:]]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def run_training(task, precision, gpus, work_dir, iters):
    """A RunResult, or the end of the run's output when it failed."""
    cmd = train_command(CONFIGS[task], precision, gpus, work_dir, iters)
    env = dict(os.environ, PORT=str(free_port()), PYTHON=sys.executable)
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    (Path(work_dir) / 'output.log').write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        last = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-1:]
        return f'exit {proc.returncode}: {" ".join(last)[:200]} (see {work_dir}/output.log)'
    return read_run(work_dir)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--iters', type=int, default=20, help='training iterations per run')
    parser.add_argument('--tasks', nargs='+', choices=sorted(CONFIGS), default=list(CONFIGS))
    parser.add_argument('--precisions', nargs='+', choices=PRECISIONS, default=list(PRECISIONS))
    parser.add_argument('--work-dir', type=Path, default=ROOT / 'work_dirs' / 'gpu_check')
    # the child of ops_check_isolated: the op comparison alone, as JSON on the last line
    parser.add_argument('--ops-json', action='store_true', help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.ops_json:
        print(json.dumps([list(check) for check in ops_against_cpu()]))
        return 0
    if not torch.cuda.is_available():
        print(
            f'gpu_check: no GPU visible (torch {torch.__version__}, CUDA build '
            f'{torch.version.cuda}): nothing to check here. Run it on a GPU machine.'
        )
        return 0
    names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    print(f'gpu_check: {len(names)} GPU(s): {", ".join(names)}')
    failed = False
    if mmcv_ops_have_cuda():
        checks = ops_check_isolated()
    else:
        checks = [OpCheck('mmcv ops', False, f'compiled without CUDA: {FIX}')]
    for check in checks:
        failed |= not check.ok
        print(f'mmcv {check.name}: {"ok" if check.ok else "FAILED"} ({check.detail})')

    write_demo_data(['--datasets', *DEMO_DATASETS], default_out=ROOT / 'data' / 'demo')
    rows = []
    gpu_counts = [1] + ([len(names)] if len(names) > 1 else [])
    for task in args.tasks:
        for gpus in gpu_counts:
            reference = None
            for precision in args.precisions:
                work_dir = args.work_dir / f'{task}-{gpus}gpu-{precision}'
                result = run_training(task, precision, gpus, work_dir, args.iters)
                agreement = None
                if isinstance(result, str):
                    failed = True
                elif precision == 'fp32':
                    reference = result
                elif reference is not None:
                    agreement = losses_agree(reference.losses, result.losses, LOSS_RTOL[precision])
                    failed |= not agreement.ok
                rows.append((task, gpus, precision, result, agreement))
                print(format_report(rows[-1:]).splitlines()[-1], flush=True)
    print(format_report(rows))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
