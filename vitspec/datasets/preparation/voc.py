"""Pascal VOC 2012 with the SBD augmented set: ``SegmentationClassAug/*.png`` from SBD's class
maps and ``ImageSets/Segmentation/aug.txt`` / ``trainaug.txt``, beside links to VOC's own files.

The lists follow mmseg's ``tools/dataset_converters/voc_aug.py`` (open-mmlab/mmsegmentation
v1.2.2), which the configs were written for: ``aug.txt`` is SBD train + val less VOC train and
val (9118 names with the full sets; the configs train on it with SegmentationClassAug and on
``train.txt`` with SegmentationClass), ``trainaug.txt`` is VOC train + SBD train + val less VOC
val (10582). Lists are written sorted, so a second run writes the same bytes. SBD's
``cls/<name>.mat`` holds the struct ``GTcls`` whose ``Segmentation`` is the uint8 class map
(0 background, 1-20 the classes), read with ``scipy.io.loadmat``.
"""

from pathlib import Path
from typing import List

import numpy as np
from PIL import Image
from scipy.io import loadmat
from scipy.io.matlab import MatReadError

from vitspec.errors import DataFileError

from .output_tree import OutputTree
from .preparation import Preparation, require_folder

NUM_CLASSES = 21  # background and the 20 classes
FULL_COUNTS = {'trainaug.txt': 10582, 'aug.txt': 9118}  # with the whole VOC 2012 and SBD
NATIVE = """\
  VOCdevkit/VOC2012/JPEGImages/<name>.jpg               (VOCtrainval_11-May-2012.tar)
  VOCdevkit/VOC2012/SegmentationClass/<name>.png
  VOCdevkit/VOC2012/ImageSets/Segmentation/{train,val}.txt
  benchmark_RELEASE/dataset/cls/<name>.mat              (SBD's benchmark.tgz)
  benchmark_RELEASE/dataset/{train,val}.txt
(VOC2012 may also sit directly in SRC, or SRC may be VOC2012 with benchmark_RELEASE in it)"""
VOC_FOLDERS = ('JPEGImages', 'SegmentationClass', 'ImageSets/Segmentation')
SETS = 'ImageSets/Segmentation'


def find_voc(src: Path) -> Path:
    for candidate in (src / 'VOCdevkit' / 'VOC2012', src / 'VOC2012', src):
        if (candidate / 'JPEGImages').is_dir():
            break
    else:
        candidate = src / 'VOCdevkit' / 'VOC2012'
    for folder in VOC_FOLDERS:
        require_folder(candidate / folder, src, NATIVE)
    return candidate


def find_sbd(src: Path, voc: Path) -> Path:
    for base in (src, voc):
        for candidate in (base / 'benchmark_RELEASE' / 'dataset', base / 'benchmark_RELEASE'):
            if (candidate / 'cls').is_dir():
                return candidate
    return require_folder(src / 'benchmark_RELEASE' / 'dataset' / 'cls', src, NATIVE).parent


def read_list(path: Path) -> List[str]:
    if not path.is_file():
        raise DataFileError(f'{path} is missing: it lists the names of a split (see {NATIVE})')
    return [line.split()[0] for line in path.read_text().splitlines() if line.strip()]


def sbd_class_map(path: Path) -> np.ndarray:
    """The class map of one SBD ``cls/*.mat``; ValueError naming what is wrong in it."""
    try:
        mat = loadmat(str(path), squeeze_me=True, struct_as_record=False)
    except (OSError, ValueError, TypeError, MatReadError) as exc:
        raise ValueError(f'cannot be read as a MATLAB file: {exc}') from exc
    if 'GTcls' not in mat or not hasattr(mat['GTcls'], 'Segmentation'):
        raise ValueError(f'holds no GTcls.Segmentation (keys: {sorted(mat)})')
    classes = np.asarray(mat['GTcls'].Segmentation)
    if classes.ndim != 2 or not np.issubdtype(classes.dtype, np.integer):
        raise ValueError(f'GTcls.Segmentation is {classes.dtype} {classes.shape}, not a 2-d map')
    unknown = np.unique(classes[(classes < 0) | (classes >= NUM_CLASSES)])
    if unknown.size:
        raise ValueError(f'class ids {unknown.tolist()} outside 0-{NUM_CLASSES - 1}')
    return classes.astype(np.uint8)


def prepare(src: Path, tree: OutputTree) -> None:
    voc = find_voc(src)
    sbd = find_sbd(src, voc)
    voc_train, voc_val = (read_list(voc / SETS / f'{s}.txt') for s in ('train', 'val'))
    sbd_names = read_list(sbd / 'train.txt') + read_list(sbd / 'val.txt')
    aug = sorted(set(sbd_names) - set(voc_train) - set(voc_val))
    trainaug = sorted(set(voc_train + sbd_names) - set(voc_val))

    for name in tree.progress(sorted(set(sbd_names)), 'voc SBD class maps'):
        _class_map(tree, sbd / 'cls' / f'{name}.mat', voc / 'JPEGImages' / f'{name}.jpg')
    for folder in ('JPEGImages', 'SegmentationClass'):
        files = sorted((voc / folder).iterdir())
        for path in tree.progress(files, f'voc links {folder}'):
            tree.link(Path(folder) / path.name, path)
    for path in sorted((voc / SETS).glob('*.txt')):
        if path.name not in FULL_COUNTS:
            tree.link(Path(SETS) / path.name, path)
    for name in sorted(set(voc_train + voc_val) - _stems(voc / 'SegmentationClass', '.png')):
        tree.report.problem(voc / 'SegmentationClass', f"no {name}.png for {name} of VOC's lists")
    tree.write_list(Path(SETS) / 'aug.txt', aug)
    tree.write_list(Path(SETS) / 'trainaug.txt', trainaug)
    for list_name, names in (('aug.txt', aug), ('trainaug.txt', trainaug)):
        if len(names) != FULL_COUNTS[list_name]:
            tree.report.note(
                f'{list_name}: {len(names)} names ({FULL_COUNTS[list_name]} with the whole VOC '
                f'2012 and SBD)'
            )


def _class_map(tree: OutputTree, mat: Path, image: Path) -> None:
    if not mat.is_file():
        tree.report.problem(mat, "missing: SBD's train.txt or val.txt lists it")
        return
    if not image.is_file():
        tree.report.problem(image, f'missing: the image of {mat.name}')
        return
    try:
        classes = sbd_class_map(mat)
        with Image.open(image) as opened:
            size = opened.size
    except (OSError, ValueError) as exc:
        tree.refuse(mat, str(exc))
        return
    if classes.shape != size[::-1]:
        shape = f'{classes.shape[1]}x{classes.shape[0]}'
        tree.refuse(mat, f'class map {shape} differs from its image {image} {size[0]}x{size[1]}')
        return
    tree.write_png(Path('SegmentationClassAug') / f'{mat.stem}.png', classes)


def _stems(folder: Path, suffix: str) -> set:
    return {p.name[: -len(suffix)] for p in folder.iterdir() if p.name.endswith(suffix)}


PREPARATION = Preparation(name='voc', default_out='data/VOCdevkit/VOC2012', native=NATIVE,
                          prepare=prepare)  # fmt: skip
