"""At the start of train / val / test, the log says what each split reads and what it left out.

For each split, once, on the main process: the dataset type, its number of samples, data_root,
data_prefix and ann_file; for val and test, the ground truth each evaluator metric reads. Then
the files in its local image and label folders that the dataset did not take
(vitspec.datasets.untaken_files), with their count and the first few names: a WARNING for files
that look meant as samples, INFO for COCO images the annotation file does not list. The val
split is reported when training starts, so its problems show before the first validation.
"""

import logging
from typing import List

from mmdet.evaluation import CocoMetric
from mmengine.dist import is_main_process
from mmengine.hooks import Hook
from mmengine.logging import print_log
from mmengine.registry import HOOKS

from vitspec.datasets.untaken_files import LABEL_KEYS, untaken_files

MAX_LISTED = 5


@HOOKS.register_module()
class DatasetReportHook(Hook):
    priority = 'VERY_HIGH'

    def __init__(self):
        self.reported = set()

    def before_train(self, runner):
        self._report('train', runner.train_dataloader.dataset)
        if runner.val_loop is not None:  # built by now: its problems show before training
            self._report('val', runner.val_loop.dataloader.dataset, runner.val_loop.evaluator)

    def before_val(self, runner):
        self._report('val', runner.val_loop.dataloader.dataset, runner.val_loop.evaluator)

    def before_test(self, runner):
        self._report('test', runner.test_loop.dataloader.dataset, runner.test_loop.evaluator)

    def _report(self, split, dataset, evaluator=None):
        if split in self.reported or not is_main_process():  # the folders are walked once
            return
        self.reported.add(split)
        for part in leaf_datasets(dataset):
            print_log(f'{split} split: {describe(part)}', logger='current', level=logging.INFO)
            for untaken in untaken_files(part):
                if untaken.names:
                    print_log(
                        f'{split} split: {len(untaken.names)} {untaken.what} in '
                        f'{untaken.folder}: {listing(untaken.names)}',
                        logger='current',
                        level=untaken.level,
                    )
        for metric in getattr(evaluator, 'metrics', []):
            print_log(
                f'{split} split: {type(metric).__name__} reads {ground_truth_of(metric, dataset)}',
                logger='current',
                level=logging.INFO,
            )


def leaf_datasets(dataset) -> List:
    """The datasets below wrappers (ConcatDataset, RepeatDataset, ClassBalancedDataset)."""
    if hasattr(dataset, 'datasets'):
        return [leaf for d in dataset.datasets for leaf in leaf_datasets(d)]
    if hasattr(dataset, 'dataset') and not hasattr(dataset, 'data_prefix'):
        return leaf_datasets(dataset.dataset)
    return [dataset]


def describe(dataset) -> str:
    fields = [f'{type(dataset).__name__}, {len(dataset)} samples']
    for attr in ('data_root', 'data_prefix', 'ann_file'):
        value = getattr(dataset, attr, None)
        if value:
            fields.append(f'{attr} {value}')
    return '; '.join(fields)


def ground_truth_of(metric, dataset) -> str:
    if isinstance(metric, CocoMetric):
        if getattr(metric, 'ann_file', None):  # DatasetCocoMetric: the dataset's file
            return metric.ann_file
        if metric._coco_api is not None:
            return 'the ann_file given in its config, not checked against the dataset'
        return "ground truth converted from the dataset's samples"
    sources = []
    for part in leaf_datasets(dataset):
        prefix = getattr(part, 'data_prefix', None) or {}
        for key in LABEL_KEYS:
            if prefix.get(key):
                listed = getattr(part, 'ann_file', '')
                sources.append(
                    f'the {key} files of the dataset under {prefix[key]}'
                    + (f' listed in {listed}' if listed else '')
                )
    return '; '.join(sources) or "the ground truth of the dataset's samples"


def listing(names: List[str]) -> str:
    more = len(names) - MAX_LISTED
    return ', '.join(names[:MAX_LISTED]) + (f', ... and {more} more' if more > 0 else '')
