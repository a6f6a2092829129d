"""Train two configs that differ only in a backbone technique, then print their results side by
side: the plain vs specialized comparison from one checkpoint with one recipe, in one command.

    python tools/compare_techniques.py CONFIG_A CONFIG_B [--gpus N] [--work-dir DIR]
        [--metrics mIoU aAcc] [--cfg-options k=v ...]

The table shows the metrics the runs logged (--metrics picks some), to four significant digits.

Before training, the two built configs are compared key by key: anything but the backbone's
technique options differing (checkpoint, schedule, data, head, seed ...) is refused with the keys
that differ, and so are two configs that build the same model. Frozen probes compare pretrained
checkpoints, so there the checkpoints may differ.
"""

import argparse
import subprocess
from pathlib import Path

from mmengine.config import DictAction

from vitspec.config.load import load_config
from vitspec.runs.table import table
from vitspec.runs.technique_comparison import check_comparable


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('configs', nargs=2)
    parser.add_argument('--gpus', type=int, default=1, help='processes per run (CPU: gloo)')
    parser.add_argument('--work-dir', default='work_dirs/compare')
    parser.add_argument('--metrics', nargs='+', help='default: every metric the runs logged')
    parser.add_argument(
        '--cfg-options', nargs='+', default=[], metavar='KEY=VALUE', help='applied to both configs'
    )
    args = parser.parse_args(argv)
    options = argparse.ArgumentParser()
    options.add_argument('--o', nargs='+', action=DictAction, default={})
    overrides = options.parse_args(['--o', *args.cfg_options]).o if args.cfg_options else {}
    cfgs = []
    for path in args.configs:
        cfg = load_config(path)  # vitspec::ade20k/x.py names too, as train.py reads them
        cfg.merge_from_dict(overrides)
        cfgs.append(cfg)
    names = [Path(p).stem for p in args.configs]
    technique = check_comparable(*cfgs, names)
    print(f'compare_techniques: the configs differ in {", ".join(technique)} only', flush=True)
    work_dirs = [Path(args.work_dir) / name for name in names]
    for path, work_dir in zip(args.configs, work_dirs):
        cmd = [
            str(Path(__file__).parent / 'dist_train.sh'),
            path,
            str(args.gpus),
            '--work-dir',
            str(work_dir),
        ]
        subprocess.run(
            cmd + (['--cfg-options', *args.cfg_options] if args.cfg_options else []), check=True
        )
    print(table(work_dirs, args.metrics))


if __name__ == '__main__':
    main()
