"""Cityscapes: the ``*_gtFine_labelTrainIds.png`` maps the configs read, beside links to the
images, from the fine annotations as the dataset ships them.

A train-id map is made from ``*_gtFine_labelIds.png`` with the id table of cityscapesscripts
(``cityscapesscripts.helpers.labels``), and only where that file is missing from the polygons
of ``*_gtFine_polygons.json`` with cityscapesscripts' own renderer (``createLabelImage`` of
``json2labelImg``, which mmseg's converter runs on every polygon file). The label-id PNGs are
that renderer's output with the ids encoding, so mapping them gives the same map; it is a table
look-up instead of drawing every polygon again, and works on downloads without the polygons.
An id the table does not know, or a polygon label it does not know, refuses the file naming it.
"""

from pathlib import Path
from typing import Dict, Optional

import numpy as np
from cityscapesscripts.helpers.annotation import Annotation
from cityscapesscripts.helpers.labels import id2label, name2label
from cityscapesscripts.preparation.json2labelImg import createLabelImage
from PIL import Image

from vitspec.errors import DataFileError

from .output_tree import OutputTree
from .preparation import Preparation, require_folder

SPLITS = ('train', 'val', 'test')
IMAGE, LABEL_IDS, POLYGONS = '_leftImg8bit.png', '_gtFine_labelIds.png', '_gtFine_polygons.json'
TRAIN_IDS = '_gtFine_labelTrainIds.png'
IGNORE = 255
NATIVE = """\
  leftImg8bit/{train,val,test}/<city>/<city>_<seq>_<frame>_leftImg8bit.png
  gtFine/{train,val,test}/<city>/<city>_<seq>_<frame>_gtFine_labelIds.png
                                 (or _gtFine_polygons.json)
as leftImg8bit_trainvaltest.zip and gtFine_trainvaltest.zip unpack"""


def train_id_table() -> np.ndarray:
    """uint8 id -> train id (255: ignored), from cityscapesscripts' labels (ids it does not know
    map to 255 too: ``known_ids`` finds them)."""
    table = np.full(256, IGNORE, dtype=np.uint8)
    for label_id, label in id2label.items():
        if 0 <= label_id < 256 and 0 <= label.trainId < IGNORE:
            table[label_id] = label.trainId
    return table


def known_ids() -> np.ndarray:
    known = np.zeros(256, dtype=bool)
    known[[i for i in id2label if 0 <= i < 256]] = True
    return known


def train_ids_from_label_ids(path: Path) -> np.ndarray:
    """The train-id map of one ``*_gtFine_labelIds.png``; ValueError naming unknown ids."""
    with Image.open(path) as image:
        if image.mode not in ('L', 'P'):
            raise ValueError(f'mode {image.mode}, not a single-channel uint8 label map')
        ids = np.asarray(image)
    unknown = np.unique(ids[~known_ids()[ids]])
    if unknown.size:
        raise ValueError(f"ids {unknown.tolist()} are not in cityscapesscripts' labels table")
    return train_id_table()[ids]


def train_ids_from_polygons(path: Path) -> np.ndarray:
    """The train-id map of one ``*_gtFine_polygons.json`` drawn by cityscapesscripts."""
    annotation = Annotation()
    annotation.fromJsonFile(str(path))
    for obj in annotation.objects:  # createLabelImage exits the process on an unknown label
        name = obj.label
        if name not in name2label and name.endswith('group'):
            name = name[: -len('group')]
        if not obj.deleted and name not in name2label:
            raise ValueError(f"label {obj.label!r} is not in cityscapesscripts' labels table")
    return np.asarray(createLabelImage(annotation, 'trainIds'))


def prepare(src: Path, tree: OutputTree) -> None:
    images_root = require_folder(src / 'leftImg8bit', src, NATIVE)
    labels_root = require_folder(src / 'gtFine', src, NATIVE)
    splits = [s for s in SPLITS if (images_root / s).is_dir()]
    if not splits:
        raise DataFileError(
            f'{images_root} holds none of the folders {", ".join(SPLITS)}; {src} should look '
            f'like:\n{NATIVE}'
        )
    for split in splits:
        images = _by_frame(images_root / split, IMAGE)
        label_ids = _by_frame(labels_root / split, LABEL_IDS)
        polygons = _by_frame(labels_root / split, POLYGONS)
        for frame in sorted((set(label_ids) | set(polygons)) - set(images)):
            label = label_ids.get(frame) or polygons[frame]
            tree.report.problem(label, f'no image {frame}{IMAGE} in {images_root / split}')
        for frame, image in tree.progress(sorted(images.items()), f'cityscapes {split}'):
            rel = image.relative_to(src)
            tree.link(rel, image)
            _train_ids(src, tree, frame, label_ids.get(frame), polygons.get(frame), image)


def _train_ids(
    src: Path, tree: OutputTree, frame: str, label_ids: Optional[Path],
    polygons: Optional[Path], image: Path,
) -> None:  # fmt: skip
    source = label_ids or polygons
    if source is None:
        tree.report.problem(image, f'no {frame}{LABEL_IDS} nor {frame}{POLYGONS} in gtFine')
        return
    try:
        train_ids = (train_ids_from_label_ids if label_ids else train_ids_from_polygons)(source)
    except (OSError, ValueError) as exc:
        tree.refuse(source, str(exc))
        return
    tree.write_png(source.relative_to(src).parent / f'{frame}{TRAIN_IDS}', train_ids)


def _by_frame(folder: Path, suffix: str) -> Dict[str, Path]:
    """``{<city>_<seq>_<frame>: path}`` of the files ``<city>/*<suffix>`` in ``folder``."""
    if not folder.is_dir():
        return {}
    return {p.name[: -len(suffix)]: p for p in folder.glob(f'*/*{suffix}')}


PREPARATION = Preparation(
    name='cityscapes', default_out='data/cityscapes', native=NATIVE, prepare=prepare
)
