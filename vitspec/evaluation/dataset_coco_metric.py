"""mmdet's CocoMetric, scoring against the annotation file of the dataset it evaluates.

CocoMetric loads its ``ann_file`` when the config is built, so a run whose dataset was moved
on the command line (``--cfg-options val_dataloader.dataset.data_root=...``) is scored against
the file at the old path. This metric takes the file from the dataset's metainfo (its
``ann_file`` key, which CheckedCocoDataset fills with the file it read) when the loop hands it
the dataset, that is when the run starts.
"""

import logging
import os.path as osp
from typing import Optional

from mmdet.datasets.api_wrappers import COCO
from mmdet.evaluation import CocoMetric
from mmdet.registry import METRICS
from mmengine.fileio import get_local_path
from mmengine.logging import print_log

from vitspec.errors import ConfigError, DataFileError

# The metainfo key under which a dataset reports the annotation file it read.
ANN_FILE_KEY = 'ann_file'


def same_file(a: str, b: str) -> bool:
    if a == b or osp.normpath(a) == osp.normpath(b):
        return True
    return osp.exists(a) and osp.exists(b) and osp.samefile(a, b)


@METRICS.register_module()
class DatasetCocoMetric(CocoMetric):
    """CocoMetric whose ground truth is the annotation file of the evaluated dataset.

    ``ann_file`` is optional: given, it must name the dataset's file (else DataFileError naming
    both); it is used as given only with a dataset that does not report its file. Without
    either, the metric refuses to guess. ``self.ann_file`` is the file it scores against.
    """

    def __init__(self, ann_file: Optional[str] = None, sort_categories: bool = False, **kwargs):
        super().__init__(ann_file=None, sort_categories=sort_categories, **kwargs)
        self.requested_ann_file = ann_file
        self.sort_categories = sort_categories
        self.ann_file = None

    @property
    def dataset_meta(self) -> Optional[dict]:
        return self._dataset_meta

    @dataset_meta.setter
    def dataset_meta(self, dataset_meta: dict) -> None:
        self._dataset_meta = dataset_meta
        ann_file = self._ann_file_of(dataset_meta or {})
        if ann_file != self.ann_file:
            self._coco_api = self._load(ann_file)
            self.ann_file = ann_file
            self.cat_ids = self.img_ids = None  # looked up again in the new file

    def _ann_file_of(self, dataset_meta: dict) -> str:
        dataset_file = dataset_meta.get(ANN_FILE_KEY)
        requested = self.requested_ann_file
        if dataset_file is None:
            if requested is None:
                raise ConfigError(
                    f'{type(self).__name__} has no annotation file: the dataset does not report '
                    f'the one it read (use CheckedCocoDataset) and no ann_file was given'
                )
            print_log(
                f'{type(self).__name__}: the dataset does not report its annotation file; '
                f'scoring against {requested} as configured, unchecked',
                logger='current',
                level=logging.WARNING,
            )
            return requested
        if requested is not None and not same_file(requested, dataset_file):
            raise DataFileError(
                f'the evaluator ann_file {requested} is not the annotation file of the dataset '
                f'it evaluates, {dataset_file}: remove the evaluator ann_file (it follows the '
                f'dataset) or point the dataset at the same file'
            )
        return dataset_file

    def _load(self, ann_file: str) -> COCO:
        with get_local_path(ann_file, backend_args=self.backend_args) as local_path:
            coco = COCO(local_path)
        if 'annotations' not in coco.dataset and not self.format_only:
            raise DataFileError(
                f'{ann_file} has no "annotations": nothing to score against '
                f'(format_only=True writes the predictions without scoring them)'
            )
        if self.sort_categories:  # Objects365's files list their categories out of id order
            coco.cats = dict(sorted(coco.cats.items()))
            coco.dataset['categories'] = sorted(coco.dataset['categories'], key=lambda c: c['id'])
        return coco
