"""NYU-Depth v2: the Eigen split in mmseg's NYU layout, from the "sync" folders of BTS and the
Toolbox and the split lists the user has.

The pairs a split list names (``<scene>/rgb_XXXXX.jpg <scene>/sync_depth_XXXXX.png <focal>``) are
linked as ``images/<split>/<scene>_XXXXX.jpg`` and ``annotations/<split>/<scene>_XXXXX.png``, the
names mmseg's ``tools/dataset_converters/nyu.py`` gives them (it moves the files; here SRC stays
as it is). The depth PNGs stay as they are: 16-bit millimetres, the unit of BTS's sync set and of
its export of the official test set; a map in another unit is refused, not converted (a map
written in metres as integers has lost its precision). mmseg's NYUDataset reads every ``.jpg`` of
``images/<split>``, so a file there that the list does not name is reported.
"""

from pathlib import Path, PurePosixPath
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
  <scene>/rgb_XXXXX.jpg and <scene>/sync_depth_XXXXX.png (16-bit millimetres), with the split
  lists nyu_train.txt / nyu_test.txt beside them: the NYU archive of mmseg's dataset guide (the
  Toolbox's download), unpacked; or BTS's sync/ (train) and official_splits/test/ folders;
  other lists: --split-file train=FILE --split-file test=FILE"""
LIST_NAMES = {
    'train': ('nyu_train.txt', 'nyudepthv2_train_files_with_gt.txt'),
    'test': ('nyu_test.txt', 'nyudepthv2_test_files_with_gt.txt'),
}
LIST_FOLDERS = ('', 'nyu')
# Where a list's relative paths are looked for in SRC: the archive's folder (or SRC holding it),
# BTS's training frames (sync/) and its export of the official test set.
ROOTS = ('', 'nyu', 'sync', 'official_splits/test')
# SHA-256 (depth_splits.list_digest) of zhyever/Monocular-Depth-Estimation-Toolbox
# splits/nyu_{train,test}.txt at df9fe145d49be1eac4f39cc4854e407128184e64, BTS's lists
# train_test_inputs/nyudepthv2_{train,test}_files_with_gt.txt (cleinc/bts).
STANDARD = {
    '6c47fbde9e3dd27bb79996a724a8f94d691916bc84436a06e4e8f826ecfe6993': 'BTS/Toolbox nyu_train, '
    '24,231 pairs',
    '4ddecf5aef6913189ebacaaf1588eb218fff2bfc763e971c422588393ba67e5f': 'Eigen test split of '
    'BTS/Toolbox nyu_test, 654 pairs',
}
# configs/_base_/datasets/nyu_depth.py: LoadDepthPNG's depth_scale, depth_unit_range
CHECKS = SampleChecks(depth_scale=1000, depth_range=(0.1, 10.0))
IMAGE_SUFFIX, DEPTH_SUFFIX = '.jpg', '.png'  # mmseg NYUDataset's img_suffix, depth_map_suffix


def sample_name(image: str) -> str:
    """``bathroom/rgb_00045.jpg`` -> ``bathroom_00045``, as mmseg's converter names it."""
    path = PurePosixPath(image)
    stem = path.stem[len('rgb_') :] if path.stem.startswith('rgb_') else path.stem
    return '_'.join((*path.parent.parts, stem))


def prepare(src: Path, tree: OutputTree, split_files: Sequence = ()) -> None:
    given = split_file_args(split_files, SPLITS)
    lists, notes = find_split_lists(src, given, LIST_NAMES, LIST_FOLDERS)
    for note in notes:
        tree.report.note(note)
    for split, list_path in lists.items():
        lines = read_split_list(list_path)
        tree.report.note(describe_list(split, list_path, lines, STANDARD))
        pairs = _pairs(src, tree, split, lines)
        good = link_pairs(tree, pairs, CHECKS, f'nyu {split}')
        tree.report.note(
            f'{split}: {len(good)} of {len(lines)} pairs in {tree.path(f"images/{split}")}'
        )
        _report_unlisted(tree, split, good)


def _pairs(src: Path, tree: OutputTree, split: str, lines) -> list:
    pairs, taken = [], {}
    for line in lines:
        where = f'{line.where} ({line.text})'
        if line.depth is None:
            tree.refuse(src / line.image, f'{where}: the line names no depth map')
            continue
        suffixes = PurePosixPath(line.image).suffix, PurePosixPath(line.depth).suffix
        if suffixes != (IMAGE_SUFFIX, DEPTH_SUFFIX):
            tree.refuse(
                src / line.image,
                f'{where}: NYUDataset reads {IMAGE_SUFFIX} images and {DEPTH_SUFFIX} depth maps',
            )
            continue
        name = sample_name(line.image)
        if name in taken:
            tree.refuse(src / line.image, f'{where}: its name {name} is taken by {taken[name]}')
            continue
        image, depth = locate(src, ROOTS, line.image), locate(src, ROOTS, line.depth)
        if image is None or depth is None:
            what, rel = ('image', line.image) if image is None else ('depth map', line.depth)
            tree.refuse(src / rel, f'{where}: {what} missing (looked in {_roots(src)})')
            continue
        taken[name] = line.where
        pairs.append(
            Pair(
                line,
                image,
                depth,
                f'images/{split}/{name}{IMAGE_SUFFIX}',
                f'annotations/{split}/{name}{DEPTH_SUFFIX}',
            )
        )
    return pairs


def _roots(src: Path) -> str:
    return ', '.join(str(src / root) if root else str(src) for root in ROOTS)


def _report_unlisted(tree: OutputTree, split: str, good) -> None:
    """Files of the output the list does not name: NYUDataset would read them too."""
    wanted = {tree.path(p.out_image) for p in good} | {tree.path(p.out_depth) for p in good}
    folders = ((f'images/{split}', IMAGE_SUFFIX), (f'annotations/{split}', DEPTH_SUFFIX))
    for folder, suffix in folders:
        root = tree.path(folder)
        for path in sorted(root.rglob(f'*{suffix}')) if root.is_dir() else ():
            if path not in wanted:
                tree.report.problem(
                    path, f'not a pair prepared from the {split} list: NYUDataset reads it too'
                )


PREPARATION = Preparation(
    name='nyu', default_out='data/nyu', native=NATIVE, prepare=prepare, split_lists=True
)
