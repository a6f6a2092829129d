"""What mmengine's Runner is given to run: the Runner itself (``checked_runner``), its hooks
(``hooks``), optimizer wrappers and constructors (``optim``), checkpoint handling
(``checkpointing``) and the CPU DDP model wrapper (mmcv's ops in a run are vitspec.mmcv_ops).
Importing this package registers every one of them."""

from .checked_runner import CheckedRunner
from .cpu_distributed import CPUDistributedDataParallel
from .hooks import (
    ComputableMetricsHook,
    DatasetReportHook,
    EmptyDatasetCheckHook,
    EvalProgressBarHook,
    IterationSeedHook,
    LinearProbeHook,
    MmcvCudaOpsCheckHook,
    SafeIOHook,
    StoredOrderDetVisualizationHook,
    StoredOrderSegVisualizationHook,
    TargetsCheckHook,
    UnusedParameterCheckHook,
)
from .optim import (
    FiniteLossAmpOptimWrapper,
    FiniteLossOptimWrapper,
    LayerDecayOptimWrapperConstructor,
    no_decay_parameters,
)
from .probe_grid_parallel import ProbeGridDataParallel

__all__ = [
    'CheckedRunner',
    'ComputableMetricsHook',
    'CPUDistributedDataParallel',
    'ProbeGridDataParallel',
    'DatasetReportHook',
    'EmptyDatasetCheckHook',
    'EvalProgressBarHook',
    'FiniteLossAmpOptimWrapper',
    'FiniteLossOptimWrapper',
    'IterationSeedHook',
    'LayerDecayOptimWrapperConstructor',
    'LinearProbeHook',
    'MmcvCudaOpsCheckHook',
    'no_decay_parameters',
    'SafeIOHook',
    'StoredOrderDetVisualizationHook',
    'StoredOrderSegVisualizationHook',
    'TargetsCheckHook',
    'UnusedParameterCheckHook',
]
