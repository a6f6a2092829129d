"""The command line of tools/make_demo_data.py: which datasets, how many images, which seed."""

import argparse
import time
from pathlib import Path

from .catalog import DATA_ROOTS, DATASETS
from .store import write_dataset

DESCRIPTION = """\
Write a small procedural dataset in the native layouts of ADE20K, Cityscapes, COCO,
NYU-Depth v2, KITTI and Pascal VOC 2012 (with the SBD augmented set), so that the unchanged
dataset classes of mmseg / mmdet (and a KITTI Eigen-split loader) can train and evaluate on it
in seconds."""


def parse_args(argv, default_out):
    parser = argparse.ArgumentParser(
        description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        '--out', type=Path, default=default_out, help=f'output folder (default: {default_out})'
    )
    parser.add_argument(
        '--datasets',
        nargs='+',
        choices=list(DATASETS),
        default=list(DATASETS),
        metavar='NAME',
        help=f'any of {", ".join(DATASETS)} (default: all)',
    )
    parser.add_argument(
        '--num-train',
        type=_count,
        default=None,
        help='training images per dataset (default: '
        + ', '.join(f'{k} {v.num_train}' for k, v in DATASETS.items())
        + ')',
    )
    parser.add_argument(
        '--num-val',
        type=_count,
        default=None,
        help='validation/test images per dataset (default: '
        + ', '.join(f'{k} {v.num_val}' for k, v in DATASETS.items())
        + ')',
    )
    parser.add_argument('--seed', type=_count, default=0, help='random seed (default: 0)')
    parser.add_argument(
        '--force',
        action='store_true',
        help='replace an existing dataset folder that has no completion marker',
    )
    return parser.parse_args(argv)


def _count(text):
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f'expected a number >= 0, got {text}')
    return value


def main(argv=None, default_out=Path('data/demo')):
    args = parse_args(argv, default_out)
    out = args.out.resolve()
    for name in dict.fromkeys(args.datasets):
        spec = DATASETS[name]
        counts = {
            'train': spec.num_train if args.num_train is None else args.num_train,
            'val': spec.num_val if args.num_val is None else args.num_val,
        }
        started = time.perf_counter()
        outcome = write_dataset(out, name, counts, args.seed, args.force)
        what = (
            'already complete, kept'
            if outcome == 'kept'
            else f'wrote in {time.perf_counter() - started:.1f} s'
        )
        print(
            f'{name:<10} {counts["train"]:>4} train + {counts["val"]:>3} val images '
            f'(seed {args.seed}), {what}: {out / DATA_ROOTS[name]}',
            flush=True,
        )
    return 0
