"""Panoptic quality of mmdet predictions (``pred_panoptic_seg``) against COCO panoptic PNGs.

mmdet's CocoPanopticMetric computes the same numbers through panopticapi, which is not on PyPI;
this metric reads the ground truth the dataset describes (``seg_map_path`` and
``segments_info`` of each sample: pack them with PackDetInputs' ``meta_keys``) and scores with
`panoptic_quality`, which follows panopticapi's ``pq_compute``. Keys as mmdet's: PQ, SQ, RQ and
their ``_th`` (things) and ``_st`` (stuff) parts, in percent.
"""

from typing import Optional, Sequence

import numpy as np
from mmdet.evaluation.functional import INSTANCE_OFFSET
from mmdet.registry import METRICS
from mmengine.evaluator import BaseMetric

from vitspec.errors import ConfigError
from vitspec.fileio.panoptic_png import check_segment_ids, read_panoptic_png

from .panoptic_quality import accumulate, average, image_stats


def prediction_segments(panoptic: np.ndarray, num_classes: int):
    """(ids, segments) of an mmdet panoptic map (label + instance * INSTANCE_OFFSET, VOID =
    ``num_classes``): ids 1.. per segment, 0 for VOID."""
    values = np.unique(panoptic)
    ids = np.zeros(panoptic.shape, dtype=np.int64)
    segments = {}
    for value in values:
        label = int(value) % INSTANCE_OFFSET
        if label == num_classes:
            continue
        if label > num_classes:
            raise ValueError(f'panoptic prediction label {label} is above {num_classes} classes')
        segment_id = len(segments) + 1
        ids[panoptic == value] = segment_id
        segments[segment_id] = dict(category=label)
    return ids, segments


@METRICS.register_module()
class PanopticQualityMetric(BaseMetric):
    """PQ / SQ / RQ over all classes, things and stuff (``dataset_meta``: ``classes``,
    ``thing_classes``; things are the first labels, as CheckedCocoPanopticDataset orders them).
    Ground truth: each sample's ``seg_map_path`` (a COCO panoptic PNG) and ``segments_info``
    (id, category label or None for VOID, iscrowd)."""

    default_prefix = 'coco_panoptic'

    def __init__(self, collect_device: str = 'cpu', prefix: Optional[str] = None, **kwargs):
        super().__init__(collect_device=collect_device, prefix=prefix)
        self.backend_args = kwargs.get('backend_args')

    def process(self, data_batch, data_samples: Sequence[dict]) -> None:
        num_classes = len(self.dataset_meta['classes'])
        for sample in data_samples:
            for key in ('seg_map_path', 'segments_info', 'pred_panoptic_seg'):
                if key not in sample:
                    raise ConfigError(
                        f'PanopticQualityMetric needs {key!r} in each data sample: pack '
                        "meta_keys=(..., 'seg_map_path', 'segments_info') with PackDetInputs "
                        'and a model that predicts pred_panoptic_seg'
                    )
            path = sample['seg_map_path']
            gt_ids = read_panoptic_png(path, self.backend_args)
            check_segment_ids(gt_ids, (s['id'] for s in sample['segments_info']), path)
            gt_segments = {
                s['id']: dict(category=s['category'], iscrowd=s.get('iscrowd', False))
                for s in sample['segments_info']
                if s['category'] is not None
            }
            panoptic = sample['pred_panoptic_seg']['sem_seg'][0].cpu().numpy()
            if panoptic.shape != gt_ids.shape:
                raise ValueError(
                    f'prediction {panoptic.shape} and ground truth {gt_ids.shape} of {path} '
                    'differ in size: predict with rescale=True'
                )
            pred_ids, pred_segments = prediction_segments(panoptic, num_classes)
            self.results.append(image_stats(gt_ids, gt_segments, pred_ids, pred_segments))

    def compute_metrics(self, results: list) -> dict:
        num_classes = len(self.dataset_meta['classes'])
        num_things = len(self.dataset_meta.get('thing_classes', ()))
        stats = accumulate(results)
        out = {}
        for suffix, labels in (
            ('', range(num_classes)),
            ('_th', range(num_things)),
            ('_st', range(num_things, num_classes)),
        ):
            avg = average(stats, labels)
            for key in ('pq', 'sq', 'rq'):
                out[f'{key.upper()}{suffix}'] = 100 * avg[key]
        return out
