"""Train a vitspec config with mmengine's Runner (scope from the config's default_scope).

python tools/train.py CONFIG [--work-dir DIR] [--resume] [--amp [fp16|bf16]] [--cfg-options k=v ...]
    [--compile] [--vis-backend tensorboard wandb] [--check-data]
tools/dist_train.sh CONFIG NUM_GPUS [args]     # torchrun; CPU + gloo when there is no GPU
"""

import argparse
import os
import sys

from vitspec.config.cfg_options_action import CfgOptionsAction
from vitspec.config.relative_paths import relative_paths_explained
from vitspec.datasets.data_check import check_data, format_report
from vitspec.runs.compile import enable_compile
from vitspec.runs.earlier_checkpoints import refuse_other_models_checkpoints
from vitspec.runs.runner import (
    build_runner,
    config_from_args,
    empty_datasets_explained,
    enable_amp,
    shutdown_distributed,
)
from vitspec.runs.vis_backends import BACKENDS, add_vis_backends
from vitspec.runs.work_dir_lock import work_dir_owned


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='Train a model')
    parser.add_argument('config', help='config file, or vitspec::<path below configs/>')
    parser.add_argument(
        '--work-dir', help='where logs and checkpoints go (default: ./work_dirs/<config name>)'
    )
    parser.add_argument(
        '--resume',
        nargs='?',
        const='auto',
        default=None,
        help='resume from CHECKPOINT, or from the latest one in the work dir',
    )
    parser.add_argument(
        '--amp',
        nargs='?',
        const='fp16',
        choices=['fp16', 'bf16'],
        help='mixed precision: fp16 (default) with dynamic loss scaling, or bf16, which needs '
        'none; the finite-loss guard stays',
    )
    parser.add_argument(
        '--compile',
        action='store_true',
        help='torch.compile the train step (options: --cfg-options compile.backend=... '
        'compile.mode=...)',
    )
    parser.add_argument(
        '--cfg-options',
        nargs='+',
        action=CfgOptionsAction,
        metavar='KEY=VALUE',
        help='override config entries, e.g. train_cfg.max_iters=100',
    )
    parser.add_argument(
        '--vis-backend',
        nargs='+',
        choices=sorted(BACKENDS),
        default=[],
        help='also log to TensorBoard and/or Weights & Biases',
    )
    parser.add_argument(
        '--check-data',
        action='store_true',
        help="first check every file of the config's datasets as tools/check_data.py does, "
        'in one process per CPU (on the first rank only); stop with the report if one is bad',
    )
    parser.add_argument('--launcher', choices=['none', 'pytorch', 'slurm'], default='none')
    parser.add_argument('--local_rank', '--local-rank', type=int, default=0)
    args = parser.parse_args(argv)
    os.environ.setdefault('LOCAL_RANK', str(args.local_rank))
    return args


def main(argv=None):
    args = parse_args(argv)
    cfg = add_vis_backends(config_from_args(args), args.vis_backend, args.config)
    if args.resume == 'auto':
        cfg.resume, cfg.load_from = True, None
    elif args.resume:
        cfg.resume, cfg.load_from = True, args.resume
    if args.amp:
        enable_amp(cfg, args.amp)
    if args.compile:
        enable_compile(cfg)
    if args.check_data and os.environ.get('RANK', os.environ.get('SLURM_PROCID', '0')) == '0':
        report = check_data(cfg)
        print(format_report(report), end='', flush=True)
        if not report.clean:
            sys.exit(1)
    # Owned before the Runner is built: it writes its config copy into the work dir. Taken here,
    # not by the config's runner, which cannot tell at __init__ whether it will train, and test
    # runs (tools/test.py's default work dir is the training's) must not be refused.
    with work_dir_owned(cfg.work_dir, cfg.launcher), relative_paths_explained(args.config, cfg):
        refuse_other_models_checkpoints(cfg)
        train(cfg)
    shutdown_distributed()


def train(cfg):
    """Its Runner is gone when it returns (see shutdown_distributed)."""
    runner = build_runner(cfg)
    with empty_datasets_explained(cfg):
        runner.train()


if __name__ == '__main__':
    main()
