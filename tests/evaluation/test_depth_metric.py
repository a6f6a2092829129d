"""Depth metrics against hand computations, and the evaluation crops against their boxes."""

import math

import numpy as np
import pytest
import torch

from vitspec.depth_crops import crop_box
from vitspec.evaluation import DepthErrorMetric
from vitspec.evaluation.depth_errors import clip_prediction, depth_errors, image_errors, valid_mask

GT = np.array([1.0, 2.0, 4.0])
PRED = np.array([2.0, 2.0, 2.0])


def test_each_metric_by_hand():
    e = depth_errors(PRED, GT)
    # differences gt - pred: -1, 0, 2
    assert e['abs_rel'] == pytest.approx((1 / 1 + 0 / 2 + 2 / 4) / 3)
    assert e['sq_rel'] == pytest.approx((1 / 1 + 0 / 2 + 4 / 4) / 3)
    assert e['rmse'] == pytest.approx(math.sqrt((1 + 0 + 4) / 3))
    logs = [math.log(2), 0.0, math.log(0.5)]  # log pred - log gt
    assert e['rmse_log'] == pytest.approx(math.sqrt(sum(v * v for v in logs) / 3))
    assert e['log10'] == pytest.approx((math.log10(2) + 0 + math.log10(2)) / 3)
    # max(pred/gt, gt/pred) = 2, 1, 2: only the middle pixel is within 1.25 ** 3 = 1.95
    assert e['delta1'] == e['delta2'] == e['delta3'] == pytest.approx(1 / 3)
    mean = sum(logs) / 3
    var = sum(v * v for v in logs) / 3 - mean**2
    assert e['silog'] == pytest.approx(100 * math.sqrt(var))


def test_delta_thresholds_by_hand():
    gt = np.array([1.0, 1.0, 2.0, 3.0])
    pred = np.array([1.1, 1 / 1.4, 3.6, 9.0])  # ratios 1.1, 1.4, 1.8, 3.0
    e = depth_errors(pred, gt)
    assert (e['delta1'], e['delta2'], e['delta3']) == pytest.approx((0.25, 0.5, 0.75))


def test_silog_is_zero_for_a_scaled_prediction():
    e = depth_errors(GT * 3, GT)
    assert e['silog'] == pytest.approx(0, abs=1e-6)
    assert e['rmse_log'] == pytest.approx(math.log(3))


def test_published_crop_boxes():
    assert crop_box('nyu_eigen', 480, 640) == (45, 471, 41, 601)
    # Garg on KITTI raw 375x1242 and on the KB-cropped 352x1216 (BTS truncation)
    assert crop_box('garg', 375, 1242) == (153, 371, 44, 1197)
    assert crop_box('garg', 352, 1216) == (143, 349, 43, 1172)
    assert crop_box('kitti_eigen', 375, 1242) == (124, 342, 44, 1197)
    with pytest.raises(ValueError, match='unknown depth evaluation crop'):
        crop_box('eigen', 10, 10)


def test_mask_is_the_box_and_the_depth_range():
    gt = np.full((480, 640), 5.0)
    gt[100, 100] = 0.0  # no measurement
    gt[101, 100] = 10.0  # at max_depth: excluded (strict, as BTS)
    mask = valid_mask(gt, 1e-3, 10.0, 'nyu_eigen')
    rows, cols = np.nonzero(mask)
    assert (rows.min(), rows.max() + 1, cols.min(), cols.max() + 1) == (45, 471, 41, 601)
    assert mask.sum() == 426 * 560 - 2


def test_garg_box_sits_on_the_kb_cropped_ground_truth():
    """zhyever/Monocular-Depth-Estimation-Toolbox kitti.py: eval_kb_crop, then the Garg
    fractions of the 352x1216 map: rows 143:349, cols 43:1172 of the KB crop (not 130:348,
    31:1184, where the box of the 375x1242 raw image would fall)."""
    mask = valid_mask(np.ones((352, 1216)), 1e-3, 80, 'garg')
    rows, cols = np.nonzero(mask)
    assert (rows.min(), rows.max() + 1, cols.min(), cols.max() + 1) == (143, 349, 43, 1172)


def test_prediction_clipping_and_non_finite_values():
    pred = np.array([np.nan, np.inf, -np.inf, -3.0, 50.0, 4.0])
    np.testing.assert_array_equal(
        clip_prediction(pred, 0.5, 10.0), [0.5, 10.0, 10.0, 0.5, 10.0, 4.0]
    )


def test_invalid_pixels_are_ignored():
    gt = np.array([[0.0, 2.0], [4.0, 0.0]])
    pred = np.array([[100.0, 2.0], [2.0, -5.0]])
    e = image_errors(pred, gt, 1e-3, 10.0)
    assert e['rmse'] == pytest.approx(math.sqrt((0 + 4) / 2))
    assert image_errors(pred, np.zeros_like(gt), 1e-3, 10.0) is None


def sample(pred, gt, **meta):
    return dict(
        pred_depth_map=dict(data=torch.tensor(pred, dtype=torch.float32)[None]),
        gt_depth_map=dict(data=torch.tensor(gt, dtype=torch.float32)[None]),
        **meta,
    )


def test_metric_averages_per_image_and_skips_empty_images():
    metric = DepthErrorMetric(metrics=['rmse', 'abs_rel'], max_depth=10.0)
    metric.process(
        {},
        [
            sample([[1.0, 1.0]], [[2.0, 2.0]]),  # rmse 1
            sample([[1.0, 4.0]], [[1.0, 1.0]]),  # rmse sqrt(9/2)
            sample([[1.0, 4.0]], [[0.0, 0.0]]),
        ],
    )  # no valid pixel
    out = metric.compute_metrics(metric.results)
    assert list(out) == ['rmse', 'abs_rel']
    assert out['rmse'] == pytest.approx((1 + math.sqrt(4.5)) / 2)  # not the pooled RMSE
    assert out['abs_rel'] == pytest.approx((0.5 + 1.5) / 2)


def test_metric_places_the_garg_box_on_the_evaluated_map():
    gt = np.ones((352, 1216))
    pred = np.ones((352, 1216))
    pred[135, 600] = 3.0  # inside the raw-image box shifted into the crop, outside the KB one
    pred[:, 40] = 3.0  # left of column 43
    metric = DepthErrorMetric(crop='garg', max_depth=80.0)
    metric.process({}, [sample(pred, gt, crop_offset=(23, 13, 375, 1242))])
    assert metric.compute_metrics(metric.results)['rmse'] == 0.0
    pred[143, 43] = 3.0  # the box's first pixel counts
    metric = DepthErrorMetric(crop='garg', max_depth=80.0)
    metric.process({}, [sample(pred, gt)])
    assert metric.compute_metrics(metric.results)['rmse'] > 0


def test_metric_rejects_unknown_names():
    with pytest.raises(ValueError, match='unknown depth metrics'):
        DepthErrorMetric(metrics=['d1'])
    with pytest.raises(ValueError, match='unknown depth evaluation crop'):
        DepthErrorMetric(crop='nyu_crop')
