"""Depth metric with Eigen / Garg crops, averaged per image.

Ours rather than mmseg's DepthMetric: that one has no Garg crop (KITTI) and raises TypeError
whenever ``depth_metrics`` is passed.
"""

from collections import OrderedDict
from typing import Optional, Sequence

import numpy as np
from mmengine.evaluator import BaseMetric
from mmengine.logging import MMLogger
from mmseg.registry import METRICS

from vitspec.depth_crops import CROPS
from vitspec.errors import ConfigError

from .depth_errors import DEPTH_METRICS, image_errors


@METRICS.register_module()
class DepthErrorMetric(BaseMetric):
    """abs_rel, sq_rel, rmse, rmse_log, log10, delta1..3 and silog (BTS definitions),
    computed on each image and averaged over images.

    Args:
        metrics: which of DEPTH_METRICS to report (default: all).
        crop: 'nyu_eigen', 'garg', 'kitti_eigen' or None, placed on the ground truth as it is
            evaluated (KITTI: after the KB crop), as the reference evaluation does.
        min_depth, max_depth: ground truth outside (min, max) is ignored (0 = invalid) and
            predictions are clipped to [min, max].
    """

    default_prefix = ''

    def __init__(
        self,
        metrics: Optional[Sequence[str]] = None,
        crop: Optional[str] = None,
        min_depth: float = 1e-3,
        max_depth: float = 10.0,
        **kwargs,
    ):
        super().__init__(**kwargs)
        metrics = DEPTH_METRICS if metrics is None else tuple(metrics)
        unknown = set(metrics) - set(DEPTH_METRICS)
        if unknown:
            raise ConfigError(f'unknown depth metrics {sorted(unknown)}; known: {DEPTH_METRICS}')
        if crop is not None and crop not in CROPS:
            raise ConfigError(f'unknown depth evaluation crop {crop!r}; use one of {CROPS}')
        self.metrics, self.crop = metrics, crop
        self.min_depth, self.max_depth = min_depth, max_depth
        self.not_computable = None  # why the last evaluation has no value, if it has none

    def process(self, data_batch, data_samples: Sequence[dict]) -> None:
        for sample in data_samples:
            pred = sample['pred_depth_map']['data'].squeeze().float().cpu().numpy()
            gt = sample['gt_depth_map']['data'].squeeze().float().cpu().numpy()
            errors = image_errors(pred, gt, self.min_depth, self.max_depth, self.crop)
            if errors is not None:  # an image without valid pixels carries no information
                self.results.append({k: errors[k] for k in self.metrics})

    def compute_metrics(self, results: list) -> dict:
        """The mean of each metric over the images with valid pixels; NaN for all when there
        is none, with the reason in ``not_computable`` (ComputableMetricsHook stops on it)."""
        self.not_computable = None
        if not results:
            crop = f' inside the {self.crop!r} crop' if self.crop else ''
            self.not_computable = (
                f'no image has a ground-truth depth pixel in ({self.min_depth}, '
                f'{self.max_depth}) m{crop}'
            )
            MMLogger.get_current_instance().warning(f'depth metric: {self.not_computable}')
            return OrderedDict((k, float('nan')) for k in self.metrics)
        return OrderedDict((k, float(np.mean([r[k] for r in results]))) for k in self.metrics)
