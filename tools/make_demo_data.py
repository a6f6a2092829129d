#!/usr/bin/env python
"""Write the procedural demo datasets (vitspec.demo) in the native layouts of ADE20K,
Cityscapes, COCO, NYU-Depth v2 and KITTI.

Every image comes from one scene generator: "stuff" in the background (sky / building / trees
above a road, or a wall above a floor) and 2-5 standing "things" (rectangles, ellipses,
triangles). Each class has its own colour and texture; texture and brightness follow the
per-pixel depth of a pinhole camera over a ground plane, so depth is learnable from the image.
Output is deterministic for a given --seed (and Pillow / zlib version).

    python tools/make_demo_data.py                      # all five into data/demo/
    python tools/make_demo_data.py --datasets coco nyu --num-train 20 --num-val 5 --out /tmp/demo

A dataset is written into a hidden temporary folder and renamed into place with a `.complete`
marker (seed, counts, generator version); a run that finds a matching marker skips that dataset.
"""

import argparse
import sys
from pathlib import Path

from vitspec.demo import DATASETS, write_datasets

DEFAULT_OUT = Path(__file__).resolve().parents[1] / 'data' / 'demo'
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


def main(argv=None, default_out=DEFAULT_OUT) -> int:
    args = parse_args(argv, default_out)
    write_datasets(args.out, args.datasets, args.seed, args.num_train, args.num_val, args.force)
    return 0


if __name__ == '__main__':
    sys.exit(main())
