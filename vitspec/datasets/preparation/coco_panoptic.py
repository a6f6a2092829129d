"""COCO panoptic: the panoptic PNGs beside their JSON, each checked against its JSON entry
before it is placed, so that a PNG that does not match is found now and not hours into a run.

The PNGs come from ``annotations/panoptic_<split>.zip`` as COCO ships them (extracted one by
one into the output), or from the folder of the same name where it was unpacked already
(linked). Every PNG's segment ids must be the segments its JSON entry lists (VOID aside), and it
must be its image's size; a PNG that differs is refused, naming the ids. The JSON is read with
mmdet's COCO panoptic API (pycocotools underneath), which names the file when it is broken.
"""

import zipfile
from pathlib import Path
from typing import Dict, Optional, Tuple

from vitspec.errors import DataFileError
from vitspec.fileio.panoptic_png import check_segment_ids, decode_panoptic_png

from ..checked_coco_panoptic import NamedCOCOPanoptic
from .output_tree import OutputTree
from .preparation import Preparation, require_folder

SPLITS = ('train2017', 'val2017')
NATIVE = """\
  annotations/panoptic_{train,val}2017.json        (panoptic_annotations_trainval2017.zip)
  annotations/panoptic_{train,val}2017.zip         (inside it; or the folder it unpacks to,
                                                     annotations/panoptic_{train,val}2017/*.png)
  {train,val}2017/<12 digits>.jpg                  (train2017.zip, val2017.zip)"""


class PngSource:
    """The panoptic PNGs of one split: an unpacked folder, else the zip COCO ships."""

    def __init__(self, annotations: Path, split: str):
        self.folder = annotations / f'panoptic_{split}'
        self.zip_path = annotations / f'panoptic_{split}.zip'
        self._zip: Optional[zipfile.ZipFile] = None
        self._members: Dict[str, str] = {}
        self.unpacked = self.folder.is_dir()
        if not self.unpacked:
            if not self.zip_path.is_file():
                raise DataFileError(
                    f'neither {self.folder} nor {self.zip_path} exists: the panoptic PNGs of '
                    f'{split}; the COCO folder should look like:\n{NATIVE}'
                )
            try:
                self._zip = zipfile.ZipFile(self.zip_path)
            except zipfile.BadZipFile as exc:
                raise DataFileError(f'{self.zip_path} is not a zip file: {exc}') from exc
            self._members = {
                Path(n).name: n for n in self._zip.namelist() if n.lower().endswith('.png')
            }

    def read(self, name: str) -> Tuple[Optional[bytes], str]:
        """The bytes of PNG ``name`` (None when absent) and where they come from."""
        if self._zip is None:
            path = self.folder / name
            return (path.read_bytes() if path.is_file() else None), str(path)
        member = self._members.get(name)
        where = f'{self.zip_path}:{member or name}'
        return (self._zip.read(member) if member else None), where

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()


def prepare(src: Path, tree: OutputTree) -> None:
    annotations = require_folder(src / 'annotations', src, NATIVE)
    splits = [s for s in SPLITS if (annotations / f'panoptic_{s}.json').is_file()]
    if not splits:
        raise DataFileError(
            f'{annotations} holds neither panoptic_train2017.json nor panoptic_val2017.json; '
            f'{src} should look like:\n{NATIVE}'
        )
    for split in splits:
        _prepare_split(src, tree, split)


def _prepare_split(src: Path, tree: OutputTree, split: str) -> None:
    json_path = src / 'annotations' / f'panoptic_{split}.json'
    coco = NamedCOCOPanoptic(str(json_path), name=str(json_path))
    images_dir = require_folder(src / split, src, NATIVE)
    pngs = PngSource(src / 'annotations', split)
    tree.link(Path('annotations') / json_path.name, json_path)
    try:
        entries = coco.dataset['annotations']
        for entry in tree.progress(entries, f'coco-panoptic {split}'):
            _place(src, tree, split, coco, pngs, images_dir, entry)
    finally:
        pngs.close()
    without = len(coco.imgs) - len({e['image_id'] for e in entries})
    if without:
        tree.report.note(f'{json_path}: {without} images have no panoptic entry')


def _place(src, tree, split, coco, pngs: PngSource, images_dir: Path, entry: dict) -> None:
    image_info = coco.imgs.get(entry['image_id'])
    if image_info is None:
        tree.report.problem(
            src / 'annotations' / f'panoptic_{split}.json',
            f'entry {entry["file_name"]} has image_id {entry["image_id"]}, not in its images',
        )
        return
    image = images_dir / image_info['file_name']
    if not image.is_file():
        tree.report.problem(image, f'missing: the image of {entry["file_name"]}')
        return
    data, where = pngs.read(entry['file_name'])
    if data is None:
        tree.report.problem(Path(where), 'missing: the panoptic PNG of its JSON entry')
        return
    try:
        ids = decode_panoptic_png(data, where)
        check_segment_ids(ids, (s['id'] for s in entry['segments_info']), where)
        size = (image_info['height'], image_info['width'])
        if ids.shape != size:
            raise DataFileError(
                f'panoptic PNG {where} is {ids.shape[1]}x{ids.shape[0]}, its image {image} '
                f'{size[1]}x{size[0]}'
            )
    except DataFileError as exc:
        tree.refuse(Path(where), str(exc))
        return
    tree.link(Path(split) / image_info['file_name'], image)
    rel = Path('annotations') / f'panoptic_{split}' / entry['file_name']
    if pngs.unpacked:
        tree.link(rel, pngs.folder / entry['file_name'])
    else:
        tree.write_bytes(rel, data)


PREPARATION = Preparation(
    name='coco-panoptic', default_out='data/coco', native=NATIVE, prepare=prepare
)
