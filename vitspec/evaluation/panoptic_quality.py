"""Panoptic quality (Kirillov et al., "Panoptic Segmentation", CVPR 2019), computed as
cocodataset/panopticapi's ``pq_compute`` does, on segment-id maps in memory.

Per image: a predicted and a ground-truth segment of the same category match when their IoU is
above 0.5, the IoU's union leaving out the predicted pixels on VOID (id 0); crowd ground truth
matches nothing and is no false negative; an unmatched prediction is no false positive when
more than half of it lies on VOID or on the crowd region of its category. Per category,
PQ = sum IoU / (TP + FP / 2 + FN / 2), SQ = sum IoU / TP, RQ = TP / (TP + FP / 2 + FN / 2); the
averages are over the categories with any TP, FP or FN.
"""

from collections import defaultdict
from typing import Dict, Iterable, Mapping

import numpy as np

VOID = 0
OFFSET = 256 * 256 * 256  # above any id of an RGB-coded PNG, as panopticapi's OFFSET
MATCH_IOU = 0.5


class CategoryStats:
    """Sums of one category: IoU of the matches, TP, FP, FN."""

    __slots__ = ('iou', 'tp', 'fp', 'fn')

    def __init__(self):
        self.iou, self.tp, self.fp, self.fn = 0.0, 0, 0, 0

    def add(self, other: 'CategoryStats') -> None:
        self.iou += other.iou
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn


def _areas(ids: np.ndarray) -> Dict[int, int]:
    values, counts = np.unique(ids, return_counts=True)
    return {int(v): int(c) for v, c in zip(values, counts)}


def image_stats(
    gt_ids: np.ndarray,
    gt_segments: Mapping[int, dict],
    pred_ids: np.ndarray,
    pred_segments: Mapping[int, dict],
) -> Dict[int, CategoryStats]:
    """Per-category sums of one image. ``*_ids``: (H, W) segment ids, VOID 0; ``gt_segments``:
    id -> dict(category, iscrowd); ``pred_segments``: id -> dict(category). Ids of the maps
    that the dicts do not list count as VOID."""
    if gt_ids.shape != pred_ids.shape:
        raise ValueError(f'ground truth {gt_ids.shape} and prediction {pred_ids.shape} differ')
    gt_ids = np.where(np.isin(gt_ids, list(gt_segments)), gt_ids, VOID).astype(np.int64)
    pred_ids = np.where(np.isin(pred_ids, list(pred_segments)), pred_ids, VOID).astype(np.int64)
    gt_area, pred_area = _areas(gt_ids), _areas(pred_ids)
    joint = _areas(gt_ids * OFFSET + pred_ids)
    overlap = {(k // OFFSET, k % OFFSET): v for k, v in joint.items()}
    stats = defaultdict(CategoryStats)
    gt_matched, pred_matched = set(), set()
    for (gt, pred), inter in overlap.items():
        if gt == VOID or pred == VOID:
            continue
        g, p = gt_segments[gt], pred_segments[pred]
        if g.get('iscrowd') or g['category'] != p['category']:
            continue
        union = pred_area[pred] + gt_area[gt] - inter - overlap.get((VOID, pred), 0)
        iou = inter / union
        if iou > MATCH_IOU:
            stats[g['category']].tp += 1
            stats[g['category']].iou += iou
            gt_matched.add(gt)
            pred_matched.add(pred)
    crowd_of_category = {}
    for gt, segment in gt_segments.items():
        if gt in gt_matched or gt not in gt_area:
            continue
        if segment.get('iscrowd'):
            crowd_of_category[segment['category']] = gt
            continue
        stats[segment['category']].fn += 1
    for pred, segment in pred_segments.items():
        if pred in pred_matched or pred not in pred_area:
            continue
        ignored = overlap.get((VOID, pred), 0)
        crowd = crowd_of_category.get(segment['category'])
        if crowd is not None:
            ignored += overlap.get((crowd, pred), 0)
        if ignored / pred_area[pred] > MATCH_IOU:
            continue
        stats[segment['category']].fp += 1
    return dict(stats)


def accumulate(per_image: Iterable[Mapping[int, CategoryStats]]) -> Dict[int, CategoryStats]:
    total = defaultdict(CategoryStats)
    for stats in per_image:
        for category, s in stats.items():
            total[category].add(s)
    return dict(total)


def average(stats: Mapping[int, CategoryStats], categories: Iterable[int]) -> dict:
    """dict(pq, sq, rq, n) averaged over those of ``categories`` with any TP, FP or FN
    (zeros and n=0 when none has)."""
    pq = sq = rq = 0.0
    n = 0
    for category in categories:
        s = stats.get(category)
        if s is None or s.tp + s.fp + s.fn == 0:
            continue
        n += 1
        denominator = s.tp + 0.5 * s.fp + 0.5 * s.fn
        pq += s.iou / denominator
        sq += s.iou / s.tp if s.tp else 0.0
        rq += s.tp / denominator
    if n == 0:
        return dict(pq=0.0, sq=0.0, rq=0.0, n=0)
    return dict(pq=pq / n, sq=sq / n, rq=rq / n, n=n)
