"""What mmengine's Runner is given to run: the Runner itself (``runner``), its hooks (``hooks``),
optimizer wrappers and constructors (``optim``), checkpoint handling (``checkpointing``), the
CPU DDP model wrapper and mmcv's ops in a run (``mmcv_ops``). Importing this package registers
every one of them."""

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
from .runner import CheckedRunner

__all__ = [
    'CheckedRunner',
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
    'MmcvCudaOpsCheckHook',
    'no_decay_parameters',
    'SafeIOHook',
    'StoredOrderDetVisualizationHook',
    'StoredOrderSegVisualizationHook',
    'TargetsCheckHook',
    'UnusedParameterCheckHook',
]
