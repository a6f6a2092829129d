"""Train two configs that differ only in a backbone technique, then print their results side by
side: the plain vs specialized comparison from one checkpoint with one recipe, in one command.

    python tools/compare_techniques.py CONFIG_A CONFIG_B [--gpus N] [--work-dir DIR]
        [--metrics mIoU aAcc] [--cfg-options k=v ...]

Before training, the two built configs are compared key by key: anything but the backbone's
technique options differing (checkpoint, schedule, data, head, seed ...) is refused with the keys
that differ, and so are two configs that build the same model. Frozen probes compare pretrained
checkpoints, so there the checkpoints may differ.
"""
import argparse
import os.path as osp
import subprocess
import sys
from pathlib import Path

from mmengine.config import Config, DictAction

sys.path.insert(0, osp.dirname(osp.dirname(osp.abspath(__file__))))
from tools.compare_runs import table  # noqa: E402

TECHNIQUE_KEYS = ('specialize', 'token_graying', 'layer_scale_init', 'layerwise_scaling',
                  'num_register_tokens', 'num_class_attn_layers', 'talking_heads')
METRICS = {'IoUMetric': ['mIoU', 'mAcc', 'aAcc'], 'DepthErrorMetric': ['rmse', 'abs_rel', 'a1'],
           'CocoMetric': ['coco/bbox_mAP', 'coco/segm_mAP']}


def flatten(node, prefix=''):
    if isinstance(node, dict):
        return {k: v for key, value in node.items()
                for k, v in flatten(value, f'{prefix}{key}.').items()}
    if isinstance(node, (list, tuple)):
        return {k: v for i, value in enumerate(node)
                for k, v in flatten(value, f'{prefix}{i}.').items()}
    return {prefix[:-1]: node}


def recipe_differences(a: Config, b: Config):
    """(technique keys that differ, other keys that differ) between two built configs."""
    fa, fb = flatten(a.to_dict()), flatten(b.to_dict())
    differ = sorted(k for k in fa.keys() | fb.keys()
                    if fa.get(k, '<absent>') != fb.get(k, '<absent>'))
    technique = [k for k in differ if k.startswith('technique.')  # the fragments' variable
                 or any(k.startswith(f'model.backbone.{t}') for t in TECHNIQUE_KEYS)]
    return technique, [k for k in differ if k not in technique]


def frozen(cfg: Config) -> bool:
    backbone = cfg.model.backbone
    return backbone.get('frozen_stages', -1) >= backbone.num_layers


def check_comparable(a: Config, b: Config, names):
    technique, other = recipe_differences(a, b)
    if frozen(a) and frozen(b):  # a frozen probe compares pretrained checkpoints
        other = [k for k in other if k != 'model.backbone.init_cfg.checkpoint']
    if other:
        shown = ', '.join(other[:10]) + (' ...' if len(other) > 10 else '')
        raise SystemExit(f'compare_techniques: {names[0]} and {names[1]} differ beyond the '
                         f'backbone technique, so the comparison would not isolate it: {shown}')
    if not any(k.startswith('model.') for k in technique):
        raise SystemExit(f'compare_techniques: {names[0]} and {names[1]} build the same model')
    return technique


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('configs', nargs=2)
    parser.add_argument('--gpus', type=int, default=1, help='processes per run (CPU: gloo)')
    parser.add_argument('--work-dir', default='work_dirs/compare')
    parser.add_argument('--metrics', nargs='+', help="default: by the config's evaluator")
    parser.add_argument('--cfg-options', nargs='+', default=[], metavar='KEY=VALUE',
                        help='applied to both configs')
    args = parser.parse_args(argv)
    options = argparse.ArgumentParser()
    options.add_argument('--o', nargs='+', action=DictAction, default={})
    overrides = options.parse_args(['--o', *args.cfg_options]).o if args.cfg_options else {}
    cfgs = []
    for path in args.configs:
        cfg = Config.fromfile(path)
        cfg.merge_from_dict(overrides)
        cfgs.append(cfg)
    names = [Path(p).stem for p in args.configs]
    technique = check_comparable(*cfgs, names)
    print(f'compare_techniques: the configs differ in {", ".join(technique)} only', flush=True)
    work_dirs = [Path(args.work_dir) / name for name in names]
    for path, work_dir in zip(args.configs, work_dirs):
        cmd = [str(Path(__file__).parent / 'dist_train.sh'), path, str(args.gpus),
               '--work-dir', str(work_dir)]
        subprocess.run(cmd + (['--cfg-options', *args.cfg_options] if args.cfg_options else []),
                       check=True)
    metrics = args.metrics or METRICS.get(cfgs[0].val_evaluator.get('type'), ['mIoU'])
    print(table(work_dirs, metrics))


if __name__ == '__main__':
    main()
