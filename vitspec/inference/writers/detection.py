"""Detection and instance-segmentation outputs: ``detections.json`` for the whole run, in COCO's
format (``images``, ``categories``, and ``annotations`` with ``bbox`` [x, y, w, h] in pixels,
``score``, ``category_id`` and, for instance models, ``segmentation`` as COCO RLE, what
pycocotools' ``COCO`` and ``loadRes`` read), written when the run ends, and
``<name>_detections.jpg``, the image with the instances scoring at least ``DRAW_SCORE``: box,
mask tint and class name."""

import json
from pathlib import Path

import cv2
import numpy as np
from pycocotools import mask as mask_utils

from .segmentation import default_palette

DRAW_SCORE = 0.3
MASK_OPACITY = 0.4


class DetectionWriter:
    def __init__(self, out_dir: Path, dataset_meta: dict, num_classes: int, category_ids=None):
        """``category_ids``: each class index's COCO id (default: index + 1)."""
        self.out_dir = Path(out_dir)
        self.classes = list(dataset_meta.get('classes') or range(num_classes))
        self.category_ids = list(category_ids or range(1, len(self.classes) + 1))
        self.palette = list(dataset_meta.get('palette') or default_palette(len(self.classes)))
        self.images, self.annotations = [], []

    def write(self, stem: str, bgr: np.ndarray, instances, source=None) -> dict:
        """``instances``: mmdet's ``pred_instances`` of one image (at the image's size);
        ``source``: its file, whose name is the COCO image's ``file_name``."""
        image_id = len(self.images) + 1
        height, width = bgr.shape[:2]
        name = Path(source).name if source else stem
        self.images.append(dict(id=image_id, file_name=name, width=width, height=height))
        boxes = instances.bboxes.float().cpu().numpy()
        scores = instances.scores.float().cpu().numpy()
        labels = instances.labels.cpu().numpy()
        masks = instances.masks.cpu().numpy() if 'masks' in instances else None
        for index, (box, score, label) in enumerate(zip(boxes, scores, labels)):
            x0, y0, x1, y1 = (float(v) for v in box)
            entry = dict(
                id=len(self.annotations) + 1,
                image_id=image_id,
                category_id=self.category_ids[int(label)],
                bbox=[x0, y0, x1 - x0, y1 - y0],
                area=(x1 - x0) * (y1 - y0),
                score=float(score),
                iscrowd=0,
            )
            if masks is not None:
                rle = mask_utils.encode(np.asfortranarray(masks[index].astype(np.uint8)))
                entry['segmentation'] = dict(size=rle['size'], counts=rle['counts'].decode())
                entry['area'] = float(mask_utils.area(rle))
            self.annotations.append(entry)
        picture = self.out_dir / f'{stem}_detections.jpg'
        cv2.imwrite(str(picture), self.draw(bgr, boxes, scores, labels, masks))
        return dict(picture=picture, detections=int((scores >= DRAW_SCORE).sum()))

    def draw(self, bgr, boxes, scores, labels, masks) -> np.ndarray:
        picture = bgr.copy()
        for index in np.flatnonzero(scores >= DRAW_SCORE):
            colour = tuple(int(c) for c in self.palette[labels[index] % len(self.palette)][::-1])
            if masks is not None:
                region = masks[index].astype(bool)
                picture[region] = (
                    picture[region] * (1 - MASK_OPACITY) + np.asarray(colour) * MASK_OPACITY
                ).astype(np.uint8)
            x0, y0, x1, y1 = (int(round(v)) for v in boxes[index])
            cv2.rectangle(picture, (x0, y0), (x1, y1), colour, 2)
            name = (
                self.classes[labels[index]] if labels[index] < len(self.classes) else labels[index]
            )
            cv2.putText(
                picture, f'{name} {scores[index]:.2f}', (x0, max(y0 - 4, 10)),
                cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA,
            )  # fmt: skip
        return picture

    def close(self) -> Path:
        categories = [
            dict(id=cid, name=str(name)) for cid, name in zip(self.category_ids, self.classes)
        ]
        path = self.out_dir / 'detections.json'
        coco = dict(images=self.images, categories=categories, annotations=self.annotations)
        path.write_text(json.dumps(coco))
        return path
