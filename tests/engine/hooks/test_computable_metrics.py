"""A metric that cannot be computed stops the evaluation, naming the split and why: mmseg's
IoUMetric on a test set whose labels are all ignore_index (mIoU NaN), the depth metric on
ground truth without a valid pixel (it gave {} and a WARNING)."""

import math
from types import SimpleNamespace

import pytest
import torch
from mmengine.evaluator import Evaluator
from mmseg.evaluation import IoUMetric

from vitspec.engine import ComputableMetricsHook
from vitspec.errors import MetricNotComputableError
from vitspec.evaluation import DepthErrorMetric


def evaluate(metric, samples):
    """``metrics`` of an mmengine Evaluator over ``samples``, and a runner whose loops hold it."""
    evaluator = Evaluator(metric)
    evaluator.dataset_meta = dict(classes=('a', 'b', 'c'))
    evaluator.process(samples)
    metrics = evaluator.evaluate(len(samples))
    loop = SimpleNamespace(evaluator=evaluator, dataloader=SimpleNamespace(dataset=samples))
    return metrics, SimpleNamespace(val_loop=loop, test_loop=loop)


def seg_sample(label_value):
    label = torch.full((1, 4, 4), label_value)
    pred = torch.zeros((1, 4, 4), dtype=torch.long)
    return dict(pred_sem_seg=dict(data=pred), gt_sem_seg=dict(data=label))


def depth_sample(gt_value):
    gt = torch.full((1, 6, 6), gt_value)
    return dict(pred_depth_map=dict(data=torch.full((1, 6, 6), 2.0)), gt_depth_map=dict(data=gt))


def test_all_ignored_segmentation_test_set_stops_naming_split_and_why():
    metrics, runner = evaluate(IoUMetric(), [seg_sample(255)] * 3)
    assert math.isnan(metrics['mIoU'])
    with pytest.raises(MetricNotComputableError) as info:
        ComputableMetricsHook().after_test_epoch(runner, metrics)
    assert str(info.value) == (
        'the test set (3 samples) has no value for aAcc, mIoU, mAcc: IoUMetric: every label '
        'pixel is ignore_index (255), so no pixel is scored'
    )


def test_depth_without_a_valid_pixel_stops_naming_split_and_why():
    metric = DepthErrorMetric(metrics=['rmse', 'delta1'], crop='garg', max_depth=80.0)
    metrics, runner = evaluate(metric, [depth_sample(0.0)] * 2)
    with pytest.raises(MetricNotComputableError) as info:
        ComputableMetricsHook().after_val_epoch(runner, metrics)
    assert str(info.value) == (
        'the val set (2 samples) has no value for rmse, delta1: DepthErrorMetric: no image has a '
        "ground-truth depth pixel in (0.001, 80.0) m inside the 'garg' crop"
    )


def test_metrics_with_values_pass():
    hook = ComputableMetricsHook()
    metrics, runner = evaluate(IoUMetric(), [seg_sample(1), seg_sample(255)])
    hook.after_test_epoch(runner, metrics)
    metrics, runner = evaluate(DepthErrorMetric(), [depth_sample(2.0), depth_sample(0.0)])
    assert metrics['rmse'] == 0.0
    hook.after_val_epoch(runner, metrics)
