"""Each metric a ledger row publishes (its ``metric``, configs/reproductions.schema.yaml) as the
evaluator that computes it logs it, and the factor from the logged unit to the published one."""

from typing import NamedTuple


class LoggedMetric(NamedTuple):
    key: str  # the key in the evaluator's results (validation records, tools/test.py output)
    scale: float  # published unit = logged value * scale


LEDGER_METRICS = {
    'mIoU': LoggedMetric('mIoU', 1.0),  # mmseg 1.2.2 IoUMetric: in %
    'RMSE': LoggedMetric('rmse', 1.0),  # vitspec DepthErrorMetric: in metres
    # mmdet 3.3.0 CocoMetric (prefix 'coco'): AP as a fraction; papers publish AP points
    'box AP': LoggedMetric('coco/bbox_mAP', 100.0),
    'mask AP': LoggedMetric('coco/segm_mAP', 100.0),
    # vitspec PanopticQualityMetric (prefix 'coco_panoptic'): in %, as mmdet's CocoPanopticMetric
    'PQ': LoggedMetric('coco_panoptic/PQ', 1.0),
}


def measured(row_metric: str, metrics: dict):
    """The value of ``row_metric`` in the published unit, or None if ``metrics`` lack it."""
    logged = LEDGER_METRICS[row_metric]
    value = metrics.get(logged.key)
    return None if value is None else float(value) * logged.scale
