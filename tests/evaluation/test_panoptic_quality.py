"""Panoptic quality on hand-worked images (numbers derived in the comments from the rules of
panopticapi's pq_compute; compared once with panopticapi itself outside the repo: equal to
3e-17 on 30 random 37x53 images with crowd and VOID)."""

import numpy as np
import pytest
import torch
from PIL import Image

from vitspec.errors import DataFileError
from vitspec.evaluation.panoptic_metric import PanopticQualityMetric, prediction_segments
from vitspec.evaluation.panoptic_quality import accumulate, average, image_stats
from vitspec.fileio.panoptic_png import id2rgb, rgb2id

A, B, C = 0, 1, 2  # A a thing, B and C stuff
GT = np.array([[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 0, 0], [3, 3, 0, 0]])
GT_SEGMENTS = {
    1: dict(category=A, iscrowd=False),
    2: dict(category=A, iscrowd=True),
    3: dict(category=B, iscrowd=False),
}
PRED = np.array([[5, 5, 5, 6], [5, 5, 6, 6], [7, 7, 7, 6], [7, 7, 0, 6]])
PRED_SEGMENTS = {5: dict(category=A), 6: dict(category=A), 7: dict(category=B)}


def first_image():
    # 5 vs 1: intersection 4, union 5 + 4 - 4 = 5 -> IoU 0.8, TP of A.
    # 7 vs 3: intersection 4, union 5 + 4 - 4 - 1 (7's pixel on VOID) = 4 -> IoU 1.0, TP of B.
    # 6: unmatched, 2 pixels on VOID + 3 on A's crowd region = 5 of 5 -> no FP.
    # crowd 2 unmatched: no FN.
    return image_stats(GT, GT_SEGMENTS, PRED, PRED_SEGMENTS)


def test_matches_void_and_crowd_as_panopticapi():
    stats = first_image()
    assert (stats[A].tp, stats[A].fp, stats[A].fn) == (1, 0, 0)
    assert stats[A].iou == pytest.approx(0.8)
    assert (stats[B].tp, stats[B].fp, stats[B].fn) == (1, 0, 0)
    assert stats[B].iou == pytest.approx(1.0)


def test_averages_over_categories_with_any_segment():
    # second image: all B in the ground truth, all A predicted: FN of B, FP of A
    second = image_stats(
        np.ones((2, 2), int), {1: dict(category=B)}, np.ones((2, 2), int), {1: dict(category=A)}
    )
    stats = accumulate([first_image(), second])
    # A: 0.8 / (1 + 0.5) = 0.5333, SQ 0.8, RQ 1 / 1.5; B: 1 / 1.5, SQ 1, RQ 1 / 1.5
    everything = average(stats, [A, B, C])  # C has no segment: not counted
    assert everything['n'] == 2
    assert everything['pq'] == pytest.approx((0.8 / 1.5 + 1 / 1.5) / 2)
    assert everything['sq'] == pytest.approx(0.9)
    assert everything['rq'] == pytest.approx(1 / 1.5)
    assert average(stats, [A])['pq'] == pytest.approx(0.8 / 1.5)
    assert average(stats, [C]) == dict(pq=0.0, sq=0.0, rq=0.0, n=0)


def test_iou_of_one_half_is_no_match():
    gt = np.array([[1, 1, 1, 1]])
    pred = np.array([[1, 1, 2, 2]])
    stats = image_stats(gt, {1: dict(category=A)}, pred, {1: dict(category=A), 2: dict(category=A)})
    assert (stats[A].tp, stats[A].fp, stats[A].fn) == (0, 2, 1)


def test_rgb_ids_round_trip():
    ids = np.array([[0, 1, 256, 65536 + 3]])
    assert (rgb2id(id2rgb(ids)) == ids).all()


def test_prediction_segments_of_an_mmdet_panoptic_map():
    # stuff label 3, thing 0 instances 1 and 2, VOID = num_classes 4
    pan = np.array([[3, 1000, 2000, 4]])
    ids, segments = prediction_segments(pan, 4)
    assert ids[0, 3] == 0 and len(set(ids[0, :3])) == 3
    assert sorted(s['category'] for s in segments.values()) == [0, 0, 3]


def metric_sample(tmp_path, ids, segments_info, pred):
    path = tmp_path / 'gt.png'
    Image.fromarray(id2rgb(ids)).save(path)
    return dict(
        seg_map_path=str(path),
        segments_info=segments_info,
        pred_panoptic_seg=dict(sem_seg=torch.as_tensor(pred)[None]),
    )


def test_metric_scores_a_perfect_prediction_100_and_names_a_bad_png(tmp_path):
    metric = PanopticQualityMetric()
    metric.dataset_meta = dict(classes=('a', 'b'), thing_classes=('a',))
    ids = np.array([[7, 7, 9], [7, 0, 9]])
    segments = [
        dict(id=7, category=0, iscrowd=False, is_thing=True),
        dict(id=9, category=1, iscrowd=False, is_thing=False),
    ]
    pred = np.array([[1000, 1000, 1], [1000, 2, 1]])  # thing 0 instance 1, stuff 1, VOID 2
    metric.process({}, [metric_sample(tmp_path, ids, segments, pred)])
    result = metric.compute_metrics(metric.results)
    assert result['PQ'] == pytest.approx(100) and result['PQ_th'] == pytest.approx(100)
    assert result['PQ_st'] == pytest.approx(100)
    unlisted = metric_sample(tmp_path, ids, segments[:1], pred)
    missing = r'gt\.png has segment ids missing from the JSON: \[9\]'
    with pytest.raises(DataFileError, match=missing):
        metric.process({}, [unlisted])
