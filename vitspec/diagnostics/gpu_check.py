"""A GPU machine's check report: the training runs' losses, speed and memory read from their
logs, whether a mixed-precision run's losses agree with fp32's, the report table, and mmcv's
ops on the device against CPU.

tools/gpu_check.sh prints it, the first command on a GPU machine; the runs themselves are
started by tools/gpu_check.py (its docstring says what it checks)."""

import json
import statistics
from pathlib import Path
from typing import NamedTuple

import torch

from vitspec.mmcv_ops.device_parity import OpCheck, ops_check_isolated
from vitspec.mmcv_ops.installed import (
    missing_kernels_message,
    mmcv_ops_have_kernels,
)

DEVICES = ('cuda', 'cpu')
CPU_PROCESSES = 2  # --device cpu: the multi-process runs' count, gloo
PRECISIONS = ('fp32', 'fp16', 'bf16')
# Loss of a mixed-precision run against fp32 at each logged iteration: |a - b| <= rtol * |b| +
# LOSS_ATOL. float16 rounds to 11 significant bits, bfloat16 to 8, and the runs drift apart a
# little with every update, hence the few iterations.
LOSS_RTOL = {'fp16': 0.02, 'bf16': 0.05}
LOSS_ATOL = 1e-3
WARMUP_ITERS = 3  # left out of iterations/s: CUDA context, cuDNN autotuning, allocator growth


class RunResult(NamedTuple):
    losses: dict  # iteration -> loss
    iters_per_s: float
    peak_memory_mb: float


class Agreement(NamedTuple):
    ok: bool
    worst_relative: float  # the largest |a - b| / |b| over the compared iterations
    iterations: int


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


def format_report(rows, processes_header='GPUs') -> str:
    """A table of runs; each row: task, process count, precision, RunResult or an error text,
    and the Agreement with fp32 (None for fp32 itself)."""
    header = f'| task | {processes_header} | precision | it/s | peak memory MB | losses vs fp32 |'
    lines = [header, '|---|---|---|---|---|---|']
    for task, processes, precision, result, agreement in rows:
        if isinstance(result, str):
            lines.append(f'| {task} | {processes} | {precision} | failed: {result} | | |')
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
            f'| {task} | {processes} | {precision} | {result.iters_per_s:.2f} | '
            f'{result.peak_memory_mb:.0f} | {verdict} |'
        )
    return '\n'.join(lines)


def process_counts(device, processes=None) -> list:
    """One process, then the multi-process count when it is several: ``processes``, by default
    every visible GPU on CUDA and CPU_PROCESSES on the CPU."""
    if processes is None:
        processes = torch.cuda.device_count() if device == 'cuda' else CPU_PROCESSES
    return [1] + ([processes] if processes > 1 else [])


def ops_checks(device) -> list:
    """mmcv's ops on `device` against CPU, in a child process; a failed check when the compiled
    ops have no kernels for `device`."""
    if not mmcv_ops_have_kernels(device):
        return [OpCheck('ops', False, missing_kernels_message(device))]
    return ops_check_isolated(device)
