"""COCO instances that fail early on missing images and log the annotations they drop.

mmdet's CocoDataset drops boxes of non-positive size and annotations of a category the file
does not list without a word, reads an empty or malformed annotation file with an error that
does not name it, and finds a missing image only when the loader reaches it, mid-training. This
one checks the file's structure and every local image once when the annotation file is read,
and names the images of the annotations it drops.
"""

import logging
import math
import os.path as osp
from functools import partial
from typing import List

from mmdet.datasets import CocoDataset
from mmdet.registry import DATASETS
from mmengine.fileio import LocalBackend, get_file_backend
from mmengine.logging import print_log

from vitspec.errors import DataFileError

from .coco_classes import missing_classes_message
from .named_coco_api import NamedCOCO

MAX_LISTED = 10
# Annotations of a category the file does not list are dropped with a warning; above this share
# of all annotations the file is taken for broken (ids from another label set, or no categories
# written) and refused: training on the rest would learn from a fraction of the boxes.
MAX_UNKNOWN_CATEGORY_SHARE = 0.01
# mmdet's LoadAnnotations drops polygons under 3 points (or of an odd number of coordinates) and
# ignores an instance left without a polygon, box included. Above this share of a training set's
# annotations the run stops (the dataset's ``max_lost_mask_share`` changes it).
MAX_LOST_MASK_SHARE = 0.01
# mmdet's CocoDataset drops a box that does not overlap its image. Dropped with a warning naming
# each; above this share of a training set's annotations the run stops (the boxes are likely in
# another convention or for other image sizes; the dataset's ``max_outside_box_share`` changes it).
MAX_OUTSIDE_BOX_SHARE = 0.01
# The metainfo key under which the evaluator (DatasetCocoMetric) finds the file read here.
ANN_FILE_KEY = 'ann_file'


def invalid_box_reason(bbox) -> str:
    """Why a COCO [x, y, w, h] box is unusable, or '' when it is fine."""
    if not isinstance(bbox, (list, tuple)) or len(bbox) != 4:
        return 'not [x, y, w, h]'
    if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in bbox):
        return 'not finite'
    if bbox[2] <= 0 or bbox[3] <= 0:
        return 'non-positive width or height'
    return ''


def mmdet_drop_reason(bbox, area, width, height) -> str:
    """Why mmdet's CocoDataset drops a valid box (invalid_box_reason ''), or '' when it keeps it:
    no overlap with its ``width`` x ``height`` image, under 1 pixel wide or high, area <= 0."""
    x, y, w, h = bbox
    if min(x + w, width) - max(x, 0) <= 0 or min(y + h, height) - max(y, 0) <= 0:
        return f'outside the {width}x{height} image'
    if w < 1 or h < 1:
        return 'under 1 pixel wide or high'
    if isinstance(area, (int, float)) and area <= 0:
        return f'area {area}'
    return ''


def polygon_problem(polygon) -> str:
    """Why mmdet's LoadAnnotations drops one polygon of a COCO segmentation, or ''."""
    if not isinstance(polygon, list):
        return f'not a list of coordinates ({type(polygon).__name__})'
    if len(polygon) % 2:
        return f'{len(polygon)} coordinates, an odd number'
    if len(polygon) < 6:
        return f'{len(polygon) // 2} points'
    return ''


def rle_size_problem(segmentation, width, height) -> str:
    """Why an RLE segmentation cannot be a mask of its ``width`` x ``height`` image, or ''."""
    if not isinstance(segmentation, dict):
        return ''
    size = segmentation.get('size')
    if not isinstance(size, (list, tuple)) or len(size) != 2:
        return f'RLE without a [height, width] size (size {size!r})'
    if list(size) != [height, width]:
        return f'RLE of size [height, width] {list(size)}, the image is [{height}, {width}]'
    return ''


def unusable_polygons(segmentation) -> int:
    """How many polygons of a COCO polygon segmentation mmdet's LoadAnnotations drops (under
    3 points, or an odd number of coordinates); 0 for RLE."""
    if not isinstance(segmentation, list):
        return 0
    return sum(1 for polygon in segmentation if polygon_problem(polygon))


def _listing(items: List[str]) -> str:
    more = len(items) - MAX_LISTED
    return '; '.join(items[:MAX_LISTED]) + (f'; ... and {more} more' if more > 0 else '')


@DATASETS.register_module()
class CheckedCocoDataset(CocoDataset):
    """CocoDataset that raises DataFileError naming the annotation file when it is empty, not
    JSON or lacks ``images`` / ``annotations`` / ``categories`` (``annotations`` may be absent
    in test mode: image-info files), listing the images of the file that are not on disk (local
    storage only; remote backends are not polled per image), and when more than
    MAX_UNKNOWN_CATEGORY_SHARE of the annotations have a ``category_id`` the file does not
    list. It logs a warning naming each image whose annotations of invalid box size or unknown
    category it drops, or whose box mmdet drops (outside its image, under 1 pixel, area <= 0),
    and the count of annotations of listed categories outside the chosen ``classes``; in a
    training set more than ``max_outside_box_share`` of the annotations outside their image is a
    DataFileError. When the pipeline loads masks, annotations without a usable polygon (3 or
    more points, an even number of coordinates: mmdet ignores such an instance, box included)
    are named in a warning, and in a training set more than ``max_lost_mask_share`` of them is a
    DataFileError; an RLE whose size is not its image's is a DataFileError naming it. Its metainfo
    names the annotation file (``ann_file``) for the evaluator; ``referenced_images`` holds the
    path of every image the file lists. A class of the config that names no category of the file
    is a DataFileError naming the classes of both."""

    def __init__(
        self,
        *args,
        max_lost_mask_share: float = MAX_LOST_MASK_SHARE,
        max_outside_box_share: float = MAX_OUTSIDE_BOX_SHARE,
        **kwargs,
    ):
        self.max_lost_mask_share = max_lost_mask_share
        self.max_outside_box_share = max_outside_box_share
        super().__init__(*args, **kwargs)
        self._metainfo[ANN_FILE_KEY] = self.ann_file

    @property
    def COCOAPI(self):  # noqa: N802 (mmdet's name)
        return partial(NamedCOCO, name=self.ann_file, need_annotations=not self.test_mode)

    def load_data_list(self) -> List[dict]:
        self._dropped, self._unknown_category, self._unchosen_category = [], [], 0
        self._num_annotations = 0
        self._lost_masks, self._short_polygons = [], 0
        self._outside, self._wrong_rle = [], []
        self._loads_masks = any(getattr(t, 'with_mask', False) for t in self.pipeline.transforms)
        self._file_category_ids = None
        data_list = super().load_data_list()
        self._report_wrong_rle()
        self._report_dropped()
        self._report_outside()
        self._check_class_names()
        self._report_lost_masks()
        self.referenced_images = frozenset(d['img_path'] for d in data_list)
        self._check_images_exist(data_list)
        return data_list

    def _check_class_names(self) -> None:
        if self._file_category_ids is None:  # a file without images: mmdet parsed nothing
            return
        problem = missing_classes_message(self.metainfo['classes'], self._file_category_names)
        if problem:
            raise DataFileError(f'COCO annotation file {self.ann_file}: {problem}')

    def parse_data_info(self, raw_data_info: dict) -> dict:
        if self._file_category_ids is None:
            self._file_category_ids = set(self.coco.cats)
            self._file_category_names = [cat['name'] for cat in self.coco.cats.values()]
            self._chosen_category_ids = set(self.cat_ids)
        img_info = raw_data_info['raw_img_info']
        kept = []
        for ann in raw_data_info['raw_ann_info']:
            self._num_annotations += 1
            category = ann.get('category_id')
            reason = invalid_box_reason(ann.get('bbox')) or self._mmdet_drop_reason(img_info, ann)
            if reason:
                outside = reason.startswith('outside')
                (self._outside if outside else self._dropped).append(
                    f'{img_info["file_name"]} (annotation {ann.get("id")}, '
                    f'bbox {ann.get("bbox")}: {reason})'
                )
            elif category not in self._file_category_ids:
                self._unknown_category.append(
                    f'{img_info["file_name"]} (annotation {ann.get("id")}, '
                    f'category_id {category!r})'
                )
            else:
                self._unchosen_category += category not in self._chosen_category_ids
                self._count_unusable_polygons(img_info, ann)
                self._check_rle_size(img_info, ann)
                kept.append(ann)
        return super().parse_data_info(dict(raw_data_info, raw_ann_info=kept))

    @staticmethod
    def _mmdet_drop_reason(img_info: dict, ann: dict) -> str:
        width, height = img_info.get('width'), img_info.get('height')
        if not all(isinstance(v, (int, float)) for v in (width, height)):
            return ''  # mmdet's own KeyError / TypeError then; not a box problem
        return mmdet_drop_reason(ann['bbox'], ann.get('area'), width, height)

    def _check_rle_size(self, img_info: dict, ann: dict) -> None:
        if not self._loads_masks:
            return
        problem = rle_size_problem(ann.get('segmentation'), img_info['width'], img_info['height'])
        if problem:
            self._wrong_rle.append(
                f'{img_info["file_name"]} (annotation {ann.get("id")}, '
                f'iscrowd {ann.get("iscrowd", 0)}: {problem})'
            )

    def _report_wrong_rle(self) -> None:
        if self._wrong_rle:
            raise DataFileError(
                f'{self.ann_file}: {len(self._wrong_rle)} annotations have an RLE mask whose '
                f"size is not their image's (the image entry's height and width), so no mask "
                f'can be made of it: {_listing(self._wrong_rle)}. Encode each mask at its '
                f"image's size (pycocotools.mask.encode of a height x width array), or correct "
                f"the image entry's width and height"
            )

    def _report_outside(self) -> None:
        outside = self._outside
        if not outside:
            return
        message = (
            f'{self.ann_file}: {len(outside)} of {self._num_annotations} annotations have a box '
            f'outside their image, which mmdet drops: {_listing(outside)}'
        )
        if not self.test_mode and len(outside) > self.max_outside_box_share * self._num_annotations:
            raise DataFileError(
                f'{message}; more than {self.max_outside_box_share:.0%} of the training '
                f'annotations would be lost. Check that bbox is [x, y, width, height] in pixels '
                f"of the image (its entry's width and height), or raise the dataset's "
                f'max_outside_box_share'
            )
        print_log(f'{message}; dropped', logger='current', level=logging.WARNING)

    def _count_unusable_polygons(self, img_info: dict, ann: dict) -> None:
        segmentation = ann.get('segmentation')
        bad = unusable_polygons(segmentation)
        if not bad or ann.get('iscrowd') or not self._loads_masks:
            return
        if bad < len(segmentation):
            self._short_polygons += bad
            return
        problems = [polygon_problem(p) for p in segmentation]
        self._lost_masks.append(
            f'{img_info["file_name"]} (annotation {ann.get("id")}, polygons: {", ".join(problems)})'
        )

    def _report_lost_masks(self) -> None:
        lost = self._lost_masks
        if self._short_polygons:
            print_log(
                f'{self.ann_file}: {self._short_polygons} polygons under 3 points or of an odd '
                f'number of coordinates are left out of masks that have other polygons',
                logger='current',
                level=logging.WARNING,
            )
        if not lost:
            return
        message = (
            f'{self.ann_file}: {len(lost)} of {self._num_annotations} annotations have no '
            f'usable polygon (3 or more points, an even number of coordinates x1, y1, x2, y2, '
            f'...), so mmdet ignores each of those instances, box included: {_listing(lost)}'
        )
        if not self.test_mode and len(lost) > self.max_lost_mask_share * self._num_annotations:
            raise DataFileError(
                f'{message}; more than {self.max_lost_mask_share:.0%} of the training '
                f'annotations would be lost. Write each polygon as x, y pairs of 3 or more '
                f"points, or raise the dataset's max_lost_mask_share"
            )
        print_log(f'{message}; ignored', logger='current', level=logging.WARNING)

    def _report_dropped(self) -> None:
        if self._dropped:
            print_log(
                f'{self.ann_file}: dropped {len(self._dropped)} annotations with invalid '
                f'boxes: {_listing(self._dropped)}',
                logger='current',
                level=logging.WARNING,
            )
        unknown = self._unknown_category
        if unknown:
            message = (
                f'{self.ann_file}: {len(unknown)} of {self._num_annotations} annotations have a '
                f"category_id that is not in the file's categories "
                f'(ids {sorted(self._file_category_ids)}): {_listing(unknown)}'
            )
            if len(unknown) > MAX_UNKNOWN_CATEGORY_SHARE * self._num_annotations:
                raise DataFileError(
                    f'{message}; more than {MAX_UNKNOWN_CATEGORY_SHARE:.0%} of the annotations '
                    f'cannot be used'
                )
            print_log(f'{message}; dropped', logger='current', level=logging.WARNING)
        if self._unchosen_category:
            print_log(
                f'{self.ann_file}: {self._unchosen_category} annotations of categories outside '
                f'the configured classes are not used',
                logger='current',
                level=logging.INFO,
            )

    def _check_images_exist(self, data_list: List[dict]) -> None:
        prefix = self.data_prefix.get('img', '') or self.data_root or '.'
        if not isinstance(get_file_backend(prefix, backend_args=self.backend_args), LocalBackend):
            return
        missing = [d['img_path'] for d in data_list if not osp.isfile(d['img_path'])]
        if missing:
            raise DataFileError(
                f'{self.ann_file} references {len(missing)} images that are '
                f'not on disk: {_listing(missing)}'
            )
