"""A metric that cannot be computed stops the evaluation, naming the split and why.

mmseg's IoUMetric reports ``mIoU: nan`` for a set whose labels are all ``ignore_index`` and
vitspec's DepthErrorMetric NaN when no image has a valid depth pixel: the test then printed NaN
or nothing, with exit 0.
"""

import math

from mmengine.hooks import Hook
from mmengine.registry import HOOKS
from mmseg.evaluation import IoUMetric

from vitspec.errors import MetricNotComputableError


@HOOKS.register_module()
class ComputableMetricsHook(Hook):
    """After each validation and test: a non-finite metric value is a MetricNotComputableError
    naming the split, its number of samples, the metrics and the reason the metric gives
    (``not_computable``), or the one known for mmseg's IoUMetric. Before the logger and the
    checkpoint hooks, so no "best" checkpoint is chosen by a NaN."""

    priority = 'ABOVE_NORMAL'

    def after_val_epoch(self, runner, metrics=None) -> None:
        check_computable(metrics, runner.val_loop, 'val')

    def after_test_epoch(self, runner, metrics=None) -> None:
        check_computable(metrics, runner.test_loop, 'test')


def check_computable(metrics, loop, split: str) -> None:
    bad = [k for k, v in (metrics or {}).items() if _number(v) and not math.isfinite(float(v))]
    if not bad:
        return
    reasons = [why(metric, metrics) for metric in getattr(loop.evaluator, 'metrics', [])]
    reasons = [r for r in reasons if r] or ['the metric divides by zero: there is nothing to score']
    size = len(loop.dataloader.dataset)
    raise MetricNotComputableError(
        f'the {split} set ({size} samples) has no value for {", ".join(bad)}: ' + '; '.join(reasons)
    )


def why(metric, metrics: dict) -> str:
    """What a metric says about its last evaluation having no value, or ''."""
    reason = getattr(metric, 'not_computable', None)
    if reason:
        return f'{type(metric).__name__}: {reason}'
    if isinstance(metric, IoUMetric) and not math.isfinite(metrics.get('aAcc', 0.0)):
        return (
            f'IoUMetric: every label pixel is ignore_index ({metric.ignore_index}), so no '
            f'pixel is scored'
        )
    return ''


def _number(value) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True
