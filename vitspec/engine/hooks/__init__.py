"""The hooks a run calls (checks, reports, training behaviours); importing this package registers
them in mmengine's HOOKS (MmcvCudaOpsCheckHook's code lives with mmcv's ops, vitspec.mmcv_ops)."""

from vitspec.mmcv_ops.device_check import MmcvCudaOpsCheckHook

from .computable_metrics import ComputableMetricsHook
from .dataset_report import DatasetReportHook
from .empty_dataset_check import EmptyDatasetCheckHook
from .eval_progress_bar import EvalProgressBarHook
from .iteration_seed import IterationSeedHook
from .linear_probe import LinearProbeHook
from .probe_grid_selection import ProbeGridSelectionHook
from .safe_io import SafeIOHook
from .stored_order_visualization import (
    StoredOrderDetVisualizationHook,
    StoredOrderSegVisualizationHook,
)
from .targets_check import TargetsCheckHook
from .unused_parameters import UnusedParameterCheckHook

__all__ = [
    'ComputableMetricsHook',
    'DatasetReportHook',
    'EmptyDatasetCheckHook',
    'EvalProgressBarHook',
    'IterationSeedHook',
    'LinearProbeHook',
    'MmcvCudaOpsCheckHook',
    'ProbeGridSelectionHook',
    'SafeIOHook',
    'StoredOrderDetVisualizationHook',
    'StoredOrderSegVisualizationHook',
    'TargetsCheckHook',
    'UnusedParameterCheckHook',
]
