"""Evaluate a checkpoint on a config's test set and print the metrics.

python tools/test.py CONFIG CHECKPOINT [--work-dir DIR] [--show-dir DIR] [--compile]
    [--no-config-check] [--cfg-options ...]
tools/dist_test.sh CONFIG CHECKPOINT NUM_GPUS [args]
"""

import argparse
import json
import os

from vitspec.checkpoints.trained import read_trained
from vitspec.config.cfg_options_action import CfgOptionsAction
from vitspec.config.relative_paths import relative_paths_explained
from vitspec.runs.compile import compile_test_step, enable_compile
from vitspec.runs.evaluation import (
    enable_show_dir,
    enable_tta,
    scalar_metrics,
    set_test_checkpoint,
    tta_requested,
)
from vitspec.runs.runner import (
    build_runner,
    config_from_args,
    empty_datasets_explained,
    shutdown_distributed,
)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='Test a model')
    parser.add_argument('config', help='config file, or vitspec::<path below configs/>')
    parser.add_argument('checkpoint', help='checkpoint file')
    parser.add_argument('--work-dir', help='where the test logs go')
    parser.add_argument('--show-dir', help='write prediction pictures (PNG) here')
    parser.add_argument(
        '--tta',
        action='store_true',
        help="test-time augmentation: the config's tta_pipeline and tta_model "
        '(configs with test_with_tta = True, e.g. the "+ms" protocols, '
        'always use them)',
    )
    parser.add_argument(
        '--compile',
        action='store_true',
        help='torch.compile the test step (options: --cfg-options compile.backend=...)',
    )
    parser.add_argument(
        '--no-config-check',
        action='store_true',
        help="test even if the config builds another model than the checkpoint's training "
        'config (meta.cfg)',
    )
    parser.add_argument('--cfg-options', nargs='+', action=CfgOptionsAction, metavar='KEY=VALUE')
    parser.add_argument('--launcher', choices=['none', 'pytorch', 'slurm'], default='none')
    parser.add_argument('--local_rank', '--local-rank', type=int, default=0)
    args = parser.parse_args(argv)
    os.environ.setdefault('LOCAL_RANK', str(args.local_rank))
    return args


def main(argv=None):
    args = parse_args(argv)
    cfg = config_from_args(args)
    # the checkpoint's training config against this one (before --tta wraps the model), first:
    # mapped, not read, its weights are read once, when the Runner loads them
    read_trained(args.checkpoint, cfg, not args.no_config_check, mmap=True)
    set_test_checkpoint(cfg, args.checkpoint)  # load_from: CheckedRunner loads it strictly
    if tta_requested(args, cfg):
        enable_tta(cfg)
    if args.show_dir:
        enable_show_dir(cfg, args.show_dir)
    if args.compile:
        enable_compile(cfg)
    with relative_paths_explained(args.config, cfg):
        runner = build_runner(cfg)
        compile_test_step(runner)
        with empty_datasets_explained(cfg):
            metrics = runner.test()
    rank = runner.rank
    del runner  # before the process group goes (see shutdown_distributed)
    shutdown_distributed()
    if rank == 0:
        print('vitspec-metrics ' + json.dumps(scalar_metrics(metrics)), flush=True)


if __name__ == '__main__':
    main()
