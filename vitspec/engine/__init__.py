"""Importing this package registers its modules."""

from .computable_metrics import ComputableMetricsHook
from .cpu_distributed import CPUDistributedDataParallel
from .dataset_report import DatasetReportHook
from .empty_dataset_check import EmptyDatasetCheckHook
from .finite_loss import FiniteLossOptimWrapper
from .finite_loss_amp import FiniteLossAmpOptimWrapper
from .iteration_seed import IterationSeedHook
from .layer_decay import LayerDecayOptimWrapperConstructor
from .linear_probe import BackboneNotFrozenError, LinearProbeHook
from .mask_annealing import MaskAnnealingHook
from .mmcv_ops_check import MmcvCudaOpsCheckHook
from .no_decay import no_decay_parameters
from .progress_bar_hook import EvalProgressBarHook
from .safe_io_hook import SafeIOHook
from .stored_order_visualization import (
    StoredOrderDetVisualizationHook,
    StoredOrderSegVisualizationHook,
)
from .strict_load import StrictLoadRunner
from .targets_check import TargetsCheckHook
from .unused_parameters import UnusedParameterCheckHook, UnusedParameterError

__all__ = [
    'BackboneNotFrozenError',
    'ComputableMetricsHook',
    'CPUDistributedDataParallel',
    'DatasetReportHook',
    'EmptyDatasetCheckHook',
    'EvalProgressBarHook',
    'FiniteLossAmpOptimWrapper',
    'FiniteLossOptimWrapper',
    'IterationSeedHook',
    'LayerDecayOptimWrapperConstructor',
    'LinearProbeHook',
    'MaskAnnealingHook',
    'MmcvCudaOpsCheckHook',
    'no_decay_parameters',
    'SafeIOHook',
    'StoredOrderDetVisualizationHook',
    'StoredOrderSegVisualizationHook',
    'StrictLoadRunner',
    'TargetsCheckHook',
    'UnusedParameterCheckHook',
    'UnusedParameterError',
]
