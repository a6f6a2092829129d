"""Panoptic outputs in COCO panoptic's results format: ``<name>_panoptic.png`` per image (RGB,
segment id = R + 256 G + 256^2 B, 0 = unlabelled / VOID), ``panoptic.json`` once per run
(``annotations``: per image ``image_id``, ``file_name`` of its PNG and ``segments_info`` of
``id``, ``category_id``, ``isthing``, ``area`` in pixels, ``bbox`` [x, y, w, h]; ``images``;
``categories`` with ``isthing``), what panopticapi's ``pq_compute`` reads as predictions, and
``<name>_panoptic.jpg``, the image with each segment's colour blended in and its border drawn.

Category ids: the COCO ids of the class names in the annotation file the model was trained on,
when its ``dataset_meta`` names that file (``ann_file``) and it is readable here; else the class
index + 1. ``self.id_source`` says which, and why; the JSON's ``info.category_ids`` and the
log repeat it.
"""

import json
import logging
from pathlib import Path
from typing import List, Optional, Tuple

import cv2
import numpy as np
from mmengine.logging import print_log
from PIL import Image

from vitspec.errors import DataFileError
from vitspec.evaluation.panoptic_metric import prediction_segments
from vitspec.fileio.panoptic_png import id2rgb

from .segmentation import default_palette

SEGMENT_OPACITY = 0.5


def coco_category_ids(dataset_meta: dict, classes: List[str]) -> Tuple[Optional[List[int]], str]:
    """(the category id of each class name in the annotation file ``dataset_meta`` names, or
    None, and a sentence saying which scheme the ids follow and why). A relative path is read
    from the working directory: the sentence names the file as found, or where it was looked
    for, so that a run from another folder is not a silent change of ids."""
    index_ids = 'class index + 1'
    ann_file = dataset_meta.get('ann_file')
    if not ann_file:
        return None, f'{index_ids} (the model names no annotation file)'
    path = Path(ann_file).absolute()
    if not path.is_file():
        return None, f'{index_ids} ({ann_file} not found from {Path.cwd()})'
    try:
        categories = json.loads(path.read_text())['categories']
        by_name = {c['name']: int(c['id']) for c in categories}
    except (ValueError, KeyError, TypeError) as exc:
        raise DataFileError(f'{path}: no readable COCO categories ({exc!r})') from exc
    missing = [name for name in classes if name not in by_name]
    if missing:
        print_log(
            f'{path} lacks the categories {missing}: category ids are class index + 1',
            logger='current',
            level=logging.WARNING,
        )
        return None, f'{index_ids} ({path} lacks categories {missing[:3]})'
    return [by_name[name] for name in classes], f'the categories of {path}'


class PanopticWriter:
    def __init__(self, out_dir: Path, dataset_meta: dict, num_things: int, num_stuff: int):
        self.out_dir = Path(out_dir)
        count = num_things + num_stuff
        self.classes = [str(c) for c in (dataset_meta.get('classes') or range(count))][:count]
        self.classes += [str(i) for i in range(len(self.classes), count)]
        self.num_things, self.num_classes = num_things, count
        self.palette = list(dataset_meta.get('palette') or default_palette(count))
        found, self.id_source = coco_category_ids(dataset_meta, self.classes)
        self.category_ids = found or [i + 1 for i in range(count)]
        self.images, self.annotations = [], []

    def write(self, stem: str, bgr: np.ndarray, panoptic: np.ndarray, source=None) -> dict:
        """``panoptic``: mmdet's (H, W) ``pred_panoptic_seg`` of the (H, W, 3) image ``bgr``."""
        # mmdet's map: class + instance * 1000, instance 0 for stuff, VOID = the class count
        ids, segments = prediction_segments(panoptic, self.num_classes)
        classes = {i: segment['category'] for i, segment in segments.items()}
        image_id = len(self.images) + 1
        height, width = bgr.shape[:2]
        name = Path(source).name if source else stem
        self.images.append(dict(id=image_id, file_name=name, width=width, height=height))
        png = self.out_dir / f'{stem}_panoptic.png'
        Image.fromarray(id2rgb(ids)).save(png)
        segments = [self._segment(ids == i, i, label) for i, label in classes.items()]
        self.annotations.append(dict(image_id=image_id, file_name=png.name, segments_info=segments))
        picture = self.out_dir / f'{stem}_panoptic.jpg'
        cv2.imwrite(str(picture), self.draw(bgr, ids, classes))
        return dict(panoptic=png, panoptic_picture=picture, segments=len(segments))

    def _segment(self, mask: np.ndarray, segment_id: int, label: int) -> dict:
        rows, cols = np.flatnonzero(mask.any(1)), np.flatnonzero(mask.any(0))
        x, y = int(cols[0]), int(rows[0])
        return dict(
            id=segment_id,
            category_id=self.category_ids[label],
            isthing=int(label < self.num_things),
            area=int(mask.sum()),
            bbox=[x, y, int(cols[-1]) - x + 1, int(rows[-1]) - y + 1],
        )

    def draw(self, bgr: np.ndarray, ids: np.ndarray, classes: dict) -> np.ndarray:
        colours = np.zeros((int(ids.max(initial=0)) + 1, 3), np.uint8)
        rng = np.random.default_rng(0)
        for segment_id, label in classes.items():
            base = np.asarray(self.palette[label % len(self.palette)], np.int64)[::-1]  # BGR
            if label < self.num_things:  # instances of one class told apart
                base = base + rng.integers(-40, 41, 3)
            colours[segment_id] = np.clip(base, 0, 255)
        blended = bgr * (1 - SEGMENT_OPACITY) + colours[ids] * SEGMENT_OPACITY
        picture = np.where(ids[..., None] > 0, blended, bgr).astype(np.uint8)
        border = np.zeros(ids.shape, bool)
        border[1:] |= ids[1:] != ids[:-1]
        border[:, 1:] |= ids[:, 1:] != ids[:, :-1]
        picture[border] = 255
        return picture

    def close(self) -> Path:
        categories = [
            dict(id=cid, name=name, isthing=int(i < self.num_things))
            for i, (cid, name) in enumerate(zip(self.category_ids, self.classes))
        ]
        path = self.out_dir / 'panoptic.json'
        coco = dict(images=self.images, annotations=self.annotations, categories=categories)
        coco['info'] = dict(category_ids=self.id_source)
        path.write_text(json.dumps(coco))
        print_log(f'{path}: category ids are {self.id_source}', logger='current')
        return path
