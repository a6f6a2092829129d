"""Importing this package registers its modules."""
from . import atomic_io  # noqa: F401  (atomic checkpoint writes)
from .empty_dataset_check import EmptyDatasetCheckHook
from .finite_loss import FiniteLossOptimWrapper
from .layer_decay import LayerDecayOptimWrapperConstructor
from .linear_probe import BackboneNotFrozenError, LinearProbeHook
from .no_decay import no_decay_parameters
from .safe_load import CheckpointError, safe_torch_load
from .unused_parameters import UnusedParameterCheckHook, UnusedParameterError

__all__ = ['BackboneNotFrozenError', 'CheckpointError', 'EmptyDatasetCheckHook',
           'FiniteLossOptimWrapper', 'LayerDecayOptimWrapperConstructor', 'LinearProbeHook',
           'no_decay_parameters', 'safe_torch_load', 'UnusedParameterCheckHook',
           'UnusedParameterError']
