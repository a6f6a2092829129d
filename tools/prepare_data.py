"""Prepare a dataset from the layout its authors ship into the layout the configs read.

    python tools/prepare_data.py cityscapes ~/downloads/cityscapes [--out data/cityscapes]
    python tools/prepare_data.py voc ~/downloads/voc          # VOCdevkit/ and benchmark_RELEASE/
    python tools/prepare_data.py coco-panoptic ~/downloads/coco [--out data/coco]
    python tools/prepare_data.py ade20k data/ade/ADEChallengeData2016   # a layout check only
    python tools/prepare_data.py nyu ~/downloads/nyu     # <scene>/ folders + nyu_{train,test}.txt
    python tools/prepare_data.py kitti ~/downloads/kitti [--split-file train=eigen_train.txt]

SRC is never written to. --out (default: the data_root of the dataset's configs) receives
links to SRC's images and the files made from SRC's labels; it may be SRC itself or lie inside
it, and then only new files are added. A second run finds every file done and writes nothing; an
interrupted run goes on where it stopped. A file already there that differs from what would be
written is refused and named (--overwrite replaces it, never in SRC). Exit status 1 when a file
was refused or a problem found; the summary at the end names each with the reason.
"""

import argparse
import sys
from pathlib import Path

from vitspec.datasets.preparation import DATASETS
from vitspec.datasets.preparation.output_tree import OutputTree
from vitspec.errors import VitspecError
from vitspec.fileio import TREE, add_output, claim_outputs


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog='\n\n'.join(f'{p.name} SRC:\n{p.native}' for p in DATASETS.values()),
    )  # fmt: skip
    parser.add_argument('dataset', choices=sorted(DATASETS), help='the dataset to prepare')
    parser.add_argument('src', type=Path, help='the dataset as downloaded and unpacked')
    add_output(
        parser, '--out', kind=TREE, type=Path,
        help="where the configs read it (default: the configs' data_root, from the current "
        'folder as training resolves it)',
    )  # fmt: skip
    parser.add_argument(
        '--split-file', action='append', default=[], type=str, metavar='[SPLIT=]FILE',
        help='nyu, kitti: the split list (BTS format) of SPLIT (train, test; taken from the file '
        'name when left out); default: a list of a known name in SRC',
    )  # fmt: skip
    parser.add_argument('--no-progress', action='store_true', help='no progress bars')
    args = parser.parse_args(argv)
    preparation = DATASETS[args.dataset]
    if args.split_file and not preparation.split_lists:
        parser.error(f'{args.dataset} reads no split list: drop --split-file')
    if not preparation.writes and args.out is not None:
        parser.error(f'{args.dataset} is a layout check only: it writes nothing, drop --out')
    if preparation.writes and args.out is None:
        args.out = Path(preparation.default_out)
    return args


def main(argv=None):
    args = parse_args(argv)
    preparation = DATASETS[args.dataset]
    try:
        if not args.src.is_dir():
            raise FileNotFoundError(f'SRC {args.src} is not a folder')
        inputs = [args.src, *(Path(v.partition('=')[2] or v) for v in args.split_file)]
        out = claim_outputs(args, inputs=inputs)['out'] if preparation.writes else args.src
        tree = OutputTree(args.src, out, overwrite=args.overwrite, progress=not args.no_progress)
        if preparation.writes and tree.out_in_src and args.overwrite:
            print(f'prepare_data: --out {out} lies in SRC: --overwrite replaces no file there')
        options = dict(split_files=args.split_file) if preparation.split_lists else {}
        preparation.prepare(args.src, tree, **options)
    except (VitspecError, FileNotFoundError) as exc:
        sys.exit(f'prepare_data: {exc}')
    print(tree.report.summary())
    if preparation.writes:
        print(f'{args.dataset} in {out}: {tree.report.changed} files written or linked')
    return 0 if tree.report.ok else 1


if __name__ == '__main__':
    sys.exit(main())
