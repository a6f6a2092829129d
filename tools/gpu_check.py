"""tools/gpu_check.sh runs this: the first command on a GPU machine.

It says which kernels mmcv's ops run on (vitspec's PyTorch / torchvision ones, or mmcv's compiled
ones), compares those ops on the GPU (NMS, RoIAlign forward and backward, deformable attention)
with their CPU results, then trains a few iterations of the demo segmentation, depth and COCO
configs on one GPU in fp32, fp16 and bf16 (and on all visible GPUs with torchrun when there are
several), and prints per run: iterations/s, peak GPU memory, and whether the losses agree with
the fp32 run of the same config and GPU count. Without a GPU it says so and exits 0. `--device
cpu` runs the same checks on CPU processes (gloo): how the tests run its code without a GPU.
"""

import argparse
import os
import socket
import subprocess
import sys
from pathlib import Path

import torch

from vitspec.demo import DATA_ROOTS
from vitspec.demo import write_datasets as write_demo_data
from vitspec.diagnostics.failure_reason import failure_reason
from vitspec.diagnostics.gpu_check import (
    CPU_PROCESSES,
    DEVICES,
    LOSS_RTOL,
    PRECISIONS,
    format_report,
    losses_agree,
    ops_checks,
    process_counts,
    read_run,
)
from vitspec.mmcv_ops.installed import describe_ops

ROOT = Path(__file__).resolve().parents[1]  # this checkout: it runs tools/train.py there
CONFIGS = {
    'segmentation': 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py',
    'depth': 'configs/demo/lin4_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py',
    'detection': 'configs/demo/mask-rcnn_specvit-tiny-p8_simplefpn_2xb4-800it_demo-coco-160x160.py',
}
DEMO_DATASETS = {'segmentation': 'ade20k', 'depth': 'nyu', 'detection': 'coco'}


def train_command(task, precision, processes, work_dir, iters, data_root=None) -> list:
    """tools/train.py for one process, tools/dist_train.sh (torchrun) for several;
    ``data_root``: the demo data folder (default: the configs' own, data/demo)."""
    options = [
        f'train_cfg.max_iters={iters}',
        f'train_cfg.val_interval={iters + 1}',  # no evaluation: training steps only
        'default_hooks.logger.interval=1',
        f'default_hooks.checkpoint.interval={iters + 1}',
        'default_hooks.checkpoint.save_last=False',
        'randomness.seed=0',
    ]
    if data_root is not None:
        root = Path(data_root) / DATA_ROOTS[DEMO_DATASETS[task]]
        splits = ('train_dataloader', 'val_dataloader', 'test_dataloader')
        options += [f'{split}.dataset.data_root={root}' for split in splits]
    amp = [] if precision == 'fp32' else ['--amp', precision]
    args = [CONFIGS[task], '--work-dir', str(work_dir), *amp, '--cfg-options', *options]
    if processes == 1:
        return [sys.executable, str(ROOT / 'tools' / 'train.py'), *args]
    return ['bash', str(ROOT / 'tools' / 'dist_train.sh'), args[0], str(processes), *args[1:]]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def run_training(task, precision, processes, work_dir, iters, device='cuda', data_root=None):
    """A RunResult, or the end of the run's output when it failed. On device 'cpu' the run sees
    no GPU, so that tools/train.py and torchrun's ranks (gloo) run on the CPU."""
    cmd = train_command(task, precision, processes, work_dir, iters, data_root)
    env = dict(os.environ, PORT=str(free_port()), PYTHON=sys.executable)
    if device == 'cpu':
        env['CUDA_VISIBLE_DEVICES'] = ''
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    Path(work_dir).mkdir(parents=True, exist_ok=True)
    (Path(work_dir) / 'output.log').write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        reason = failure_reason(proc.stdout + proc.stderr)
        return f'exit {proc.returncode}: {reason} (see {work_dir}/output.log)'
    return read_run(work_dir)


def train_runs(device, counts, tasks, precisions, work_dir, iters, data_root=None):
    """Every (task, process count, precision) run, each compared with the fp32 run of its task
    and count: the report's rows, printed as they finish, and whether any failed or differed."""
    rows, failed = [], False
    unit = 'gpu' if device == 'cuda' else 'cpu'
    for task in tasks:
        for processes in counts:
            reference = None
            for precision in precisions:
                work = Path(work_dir) / f'{task}-{processes}{unit}-{precision}'
                result = run_training(task, precision, processes, work, iters, device, data_root)
                agreement = None
                if isinstance(result, str):
                    failed = True
                elif precision == 'fp32':
                    reference = result
                elif reference is not None:
                    agreement = losses_agree(reference.losses, result.losses, LOSS_RTOL[precision])
                    failed |= not agreement.ok
                rows.append((task, processes, precision, result, agreement))
                print(format_report(rows[-1:]).splitlines()[-1], flush=True)
    return rows, failed


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--iters', type=int, default=20, help='training iterations per run')
    parser.add_argument('--tasks', nargs='+', choices=sorted(CONFIGS), default=list(CONFIGS))
    parser.add_argument('--precisions', nargs='+', choices=PRECISIONS, default=list(PRECISIONS))
    parser.add_argument('--work-dir', type=Path, default=ROOT / 'work_dirs' / 'gpu_check')
    parser.add_argument(
        '--data-root',
        type=Path,
        default=ROOT / 'data' / 'demo',
        help='where the demo data is written and read (default: data/demo)',
    )
    parser.add_argument(
        '--device',
        choices=DEVICES,
        default='cuda',
        help='cpu: the same checks on CPU processes (gloo), to try this tool without a GPU',
    )
    parser.add_argument(
        '--processes',
        type=int,
        default=None,
        help=f'processes of the multi-process runs (default: every visible GPU; '
        f'{CPU_PROCESSES} with --device cpu)',
    )
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.device == 'cuda' and not torch.cuda.is_available():
        print(
            f'gpu_check: no GPU visible (torch {torch.__version__}, CUDA build '
            f'{torch.version.cuda}): nothing to check here. Run it on a GPU machine.'
        )
        return 0
    if args.device == 'cuda':
        names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
        print(f'gpu_check: {len(names)} GPU(s): {", ".join(names)}')
    else:
        print('gpu_check: on the CPU (--device cpu), multi-process runs with gloo')
    print(f'mmcv ops: {describe_ops()}')
    failed = False
    for check in ops_checks(args.device):
        failed |= not check.ok
        print(f'mmcv {check.name}: {"ok" if check.ok else "FAILED"} ({check.detail})')

    datasets = [DEMO_DATASETS[task] for task in args.tasks]
    write_demo_data(args.data_root, datasets)
    counts = process_counts(args.device, args.processes)
    rows, runs_failed = train_runs(
        args.device, counts, args.tasks, args.precisions, args.work_dir, args.iters, args.data_root
    )
    print(format_report(rows, 'GPUs' if args.device == 'cuda' else 'CPU processes'))
    return 1 if failed or runs_failed else 0


if __name__ == '__main__':
    sys.exit(main())
