"""Evaluate a checkpoint on a config's test set and print the metrics.

    python tools/test.py CONFIG CHECKPOINT [--work-dir DIR] [--show-dir DIR] [--cfg-options ...]
    tools/dist_test.sh CONFIG CHECKPOINT NUM_GPUS [args]
"""
import argparse
import json
import os
import os.path as osp
import sys

from mmengine.config import DictAction

sys.path.insert(0, osp.dirname(osp.dirname(osp.abspath(__file__))))
from tools.launch import (build_runner, config_from_args, empty_datasets_explained,  # noqa: E402
                          shutdown_distributed)
from vitspec.engine import CheckpointError  # noqa: E402


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='Test a model')
    parser.add_argument('config', help='config file')
    parser.add_argument('checkpoint', help='checkpoint file')
    parser.add_argument('--work-dir', help='where the test logs go')
    parser.add_argument('--show-dir', help='write prediction pictures (PNG) here')
    parser.add_argument('--tta', action='store_true',
                        help="test-time augmentation: the config's tta_pipeline and tta_model "
                             '(configs with test_with_tta = True, e.g. the "+ms" protocols, '
                             'always use them)')
    parser.add_argument('--cfg-options', nargs='+', action=DictAction, metavar='KEY=VALUE')
    parser.add_argument('--launcher', choices=['none', 'pytorch', 'slurm'], default='none')
    parser.add_argument('--local_rank', '--local-rank', type=int, default=0)
    args = parser.parse_args(argv)
    os.environ.setdefault('LOCAL_RANK', str(args.local_rank))
    return args


def enable_show_dir(cfg, show_dir):
    """Turn on the scope's visualization hook, writing pictures under ``show_dir``."""
    hook = cfg.default_hooks.get('visualization')
    if hook is None:
        raise KeyError('--show-dir needs default_hooks.visualization in the config')
    hook.update(draw=True, interval=1)
    cfg.visualizer.save_dir = show_dir
    cfg.visualizer.vis_backends = [dict(type='LocalVisBackend')]


def tta_requested(args, cfg) -> bool:
    """--tta, or a config whose published protocol always tests with TTA (test_with_tta)."""
    return bool(args.tta or cfg.get('test_with_tta', False))


def enable_tta(cfg):
    for key in ('tta_pipeline', 'tta_model'):
        if key not in cfg:
            raise KeyError(f'--tta needs {key} in the config')
    cfg.test_dataloader.dataset.pipeline = cfg.tta_pipeline
    cfg.tta_model.module = cfg.model
    cfg.model = cfg.tta_model


def main(argv=None):
    args = parse_args(argv)
    cfg = config_from_args(args)
    if tta_requested(args, cfg):
        enable_tta(cfg)
    if args.show_dir:
        enable_show_dir(cfg, args.show_dir)
    runner = build_runner(cfg)
    load_strict(runner, args.checkpoint)
    with empty_datasets_explained(cfg):
        metrics = runner.test()
    shutdown_distributed()
    if runner.rank == 0:
        print('vitspec-metrics ' + json.dumps(scalar_metrics(metrics)), flush=True)


def load_strict(runner, checkpoint: str):
    """Unlike load_from (strict=False), a checkpoint of another model is an error here: a
    test of half-loaded weights would print a wrong metric."""
    try:
        runner.load_checkpoint(checkpoint, strict=True)
    except RuntimeError as exc:
        raise CheckpointError(f'{checkpoint} does not fit the model of this config: {exc}') \
            from None


def scalar_metrics(metrics: dict) -> dict:
    """The numeric entries (Python or numpy scalars) of a metrics dict, as floats."""
    out = {}
    for key, value in metrics.items():
        try:
            out[key] = float(value)
        except (TypeError, ValueError):
            pass
    return out


if __name__ == '__main__':
    main()
