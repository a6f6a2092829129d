"""Every head of a probe grid evaluated by its own copy of the single-probe config's metric,
from one backbone pass (each sample carries every head's prediction as ``probe_grid``).

The results are the inner metric's keys under each head's name (``lr1e-3_last1/mIoU``), so the
log and the checkpoint hooks see them side by side."""

import copy

from mmengine.evaluator import BaseMetric
from mmseg.registry import METRICS

from vitspec.errors import ConfigError


@METRICS.register_module()
class ProbeGridMetric(BaseMetric):
    """``metric``: the single-probe config's evaluator metric; ``heads``: the head names."""

    def __init__(self, metric: dict, heads, **kwargs):
        super().__init__(**kwargs)
        if not heads:
            raise ConfigError('ProbeGridMetric: no heads')
        self.metrics = {name: METRICS.build(copy.deepcopy(metric)) for name in heads}

    @property
    def dataset_meta(self):
        return self._dataset_meta

    @dataset_meta.setter
    def dataset_meta(self, meta) -> None:
        self._dataset_meta = meta  # BaseMetric's own field
        for metric in getattr(self, 'metrics', {}).values():
            metric.dataset_meta = meta

    def process(self, data_batch, data_samples) -> None:
        for name, metric in self.metrics.items():
            metric.process(data_batch, [sample['probe_grid'][name] for sample in data_samples])

    def compute_metrics(self, results) -> dict:  # evaluate() asks each head's metric instead
        raise NotImplementedError

    def evaluate(self, size: int) -> dict:
        return {
            f'{name}/{key}': value
            for name, metric in self.metrics.items()
            for key, value in metric.evaluate(size).items()
        }
