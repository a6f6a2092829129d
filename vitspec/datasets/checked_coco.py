"""COCO instances that fail early on missing images and log the boxes they drop.

mmdet's CocoDataset drops boxes of non-positive size without a word and finds a missing image
only when the loader reaches it, mid-training. This one checks every local image once when the
annotation file is read and names the images of the boxes it drops.
"""

import math
import os.path as osp
from typing import List

from mmdet.datasets import CocoDataset
from mmdet.registry import DATASETS, TRANSFORMS
from mmengine.fileio import LocalBackend, get_file_backend
from mmengine.logging import print_log

from vitspec.errors import DataFileError

from .checked_loading import CheckedLoadImageFromFile

TRANSFORMS.register_module(module=CheckedLoadImageFromFile)  # its errors name the file
MAX_LISTED = 10


def invalid_box_reason(bbox) -> str:
    """Why a COCO [x, y, w, h] box is unusable, or '' when it is fine."""
    if not isinstance(bbox, (list, tuple)) or len(bbox) != 4:
        return 'not [x, y, w, h]'
    if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in bbox):
        return 'not finite'
    if bbox[2] <= 0 or bbox[3] <= 0:
        return 'non-positive width or height'
    return ''


def _listing(items: List[str]) -> str:
    more = len(items) - MAX_LISTED
    return '; '.join(items[:MAX_LISTED]) + (f'; ... and {more} more' if more > 0 else '')


@DATASETS.register_module()
class CheckedCocoDataset(CocoDataset):
    """CocoDataset that raises DataFileError listing the images of the annotation file that
    are not on disk (local storage only; remote backends are not polled per image), and logs
    a warning naming each image whose boxes of invalid size it drops."""

    def load_data_list(self) -> List[dict]:
        self._dropped = []
        data_list = super().load_data_list()
        if self._dropped:
            print_log(
                f'{self.ann_file}: dropped {len(self._dropped)} annotations with invalid '
                f'boxes: {_listing(self._dropped)}',
                logger='current',
                level='WARNING',
            )
        self._check_images_exist(data_list)
        return data_list

    def parse_data_info(self, raw_data_info: dict) -> dict:
        img_info = raw_data_info['raw_img_info']
        kept = []
        for ann in raw_data_info['raw_ann_info']:
            reason = invalid_box_reason(ann.get('bbox'))
            if reason:
                self._dropped.append(
                    f'{img_info["file_name"]} (annotation {ann.get("id")}, '
                    f'bbox {ann.get("bbox")}: {reason})'
                )
            else:
                kept.append(ann)
        return super().parse_data_info(dict(raw_data_info, raw_ann_info=kept))

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
