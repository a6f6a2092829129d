"""KITTI: the Eigen split in the BTS layout that ``KITTIDepthDataset`` reads, from the raw drives,
the annotated depth maps and the split lists the user has.

Each pair a list names is linked where the configs read it: the image under ``raw/`` (KITTI raw
``<date>/<date>_drive_XXXX_sync/image_02/data/*.png``), the depth map under
``data_depth_annotated/`` (``<drive>/proj_depth/groundtruth/image_02/*.png``, uint16 = metres x
256), found wherever ``data_depth_annotated.zip`` put it (its ``train/`` and ``val/`` folders,
which BTS and the Toolbox ask the user to merge by hand). The lists the configs name,
``eigen_{train,test}_files.txt``, are written with the lines whose pairs are there; a test line
without ground truth (``None``, 45 of the standard 697) is left out, as the dataset skips it.
"""

from pathlib import Path
from typing import Sequence

from ..file_checks import SampleChecks
from .depth_splits import (
    Pair,
    describe_list,
    find_split_lists,
    link_pairs,
    locate,
    read_split_list,
    split_file_args,
)
from .output_tree import OutputTree
from .preparation import Preparation

SPLITS = ('train', 'test')
NATIVE = """\
  <date>/<date>_drive_XXXX_sync/image_02/data/*.png   (KITTI raw, also under raw/ or input/)
  data_depth_annotated/{train,val}/<date>_drive_XXXX_sync/proj_depth/groundtruth/image_02/*.png
                                    (as data_depth_annotated.zip unpacks, or merged)
  eigen_train_files_with_gt.txt, eigen_test_files_with_gt.txt (BTS's lists; the Toolbox's
  kitti_eigen_{train,test}.txt), or --split-file train=FILE --split-file test=FILE"""
LIST_NAMES = {
    'train': ('eigen_train_files_with_gt.txt', 'kitti_eigen_train.txt', 'eigen_train_files.txt'),
    'test': ('eigen_test_files_with_gt.txt', 'kitti_eigen_test.txt', 'eigen_test_files.txt'),
}
IMAGE_ROOTS = ('', 'raw', 'input')
DEPTH_ROOTS = (
    'data_depth_annotated', 'data_depth_annotated/train', 'data_depth_annotated/val',
    'gt_depth', 'train', 'val',
)  # fmt: skip
# The layout of configs/_base_/datasets/kitti_depth.py: data_prefix and ann_file
IMAGE_OUT, DEPTH_OUT = 'raw', 'data_depth_annotated'
OUT_LISTS = {'train': 'eigen_train_files.txt', 'test': 'eigen_test_files.txt'}
# SHA-256 (depth_splits.list_digest) of zhyever/Monocular-Depth-Estimation-Toolbox
# splits/kitti_eigen_{train,test}.txt at df9fe145d49be1eac4f39cc4854e407128184e64, the same
# files as BTS's train_test_inputs/eigen_{train,test}_files_with_gt.txt (cleinc/bts).
STANDARD = {
    '871d226a19b67c64f7cc9b8c34eebf2601e6ecb1ee0653c298b9a7fba8771c30': 'BTS/Toolbox Eigen '
    'train, 23,158 pairs',
    '2f3858161bbfc8ae49dfaf44cc3a60112189752df72db9b97a00e4b0356c2b7b': 'BTS/Toolbox Eigen '
    'test, 697 lines, 652 with ground truth',
}
# configs/_base_/datasets/kitti_depth.py: LoadDepthPNG's depth_scale, depth_unit_range
CHECKS = SampleChecks(depth_scale=256, depth_range=(1.0, 80.0))


def prepare(src: Path, tree: OutputTree, split_files: Sequence = ()) -> None:
    given = split_file_args(split_files, SPLITS)
    lists, notes = find_split_lists(src, given, LIST_NAMES)
    for note in notes:
        tree.report.note(note)
    for split, list_path in lists.items():
        lines = read_split_list(list_path)
        tree.report.note(describe_list(split, list_path, lines, STANDARD))
        no_depth = sum(line.depth is None for line in lines)
        pairs = _pairs(src, tree, [line for line in lines if line.depth is not None])
        good = link_pairs(tree, pairs, CHECKS, f'kitti {split}')
        tree.write_bytes(OUT_LISTS[split], ''.join(f'{p.line.text}\n' for p in good).encode())
        skipped = f'; {no_depth} lines without ground truth left out' if no_depth else ''
        tree.report.note(
            f'{split}: {len(good)} of {len(lines)} lines in {tree.path(OUT_LISTS[split])}{skipped}'
        )


def _pairs(src: Path, tree: OutputTree, lines) -> list:
    pairs, taken = [], set()
    for line in lines:
        where = f'{line.where} ({line.text})'
        if (line.image, line.depth) in taken:
            tree.refuse(src / line.image, f'{where}: the pair is listed twice')
            continue
        image = locate(src, IMAGE_ROOTS, line.image)
        depth = locate(src, DEPTH_ROOTS, line.depth)
        if image is None:
            tree.refuse(
                src / line.image, f'{where}: image missing (looked in {_roots(src, IMAGE_ROOTS)})'
            )
            continue
        if depth is None:
            tree.refuse(
                src / DEPTH_ROOTS[0] / line.depth,
                f'{where}: depth map missing (looked in {_roots(src, DEPTH_ROOTS)})',
            )
            continue
        taken.add((line.image, line.depth))
        pairs.append(
            Pair(line, image, depth, f'{IMAGE_OUT}/{line.image}', f'{DEPTH_OUT}/{line.depth}')
        )
    return pairs


def _roots(src: Path, roots) -> str:
    return ', '.join(str(src / root) if root else str(src) for root in roots)


PREPARATION = Preparation(
    name='kitti', default_out='data/kitti', native=NATIVE, prepare=prepare, split_lists=True
)
