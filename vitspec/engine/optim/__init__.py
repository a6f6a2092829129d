"""Optimizer wrappers and constructors: layer-wise lr decay, no weight decay by parameter kind,
and the finite-loss wrappers (plain and mixed precision) with their cap on skipped steps.
Importing this package registers them."""

from .finite_loss import FiniteLossOptimWrapper
from .finite_loss_amp import FiniteLossAmpOptimWrapper
from .layer_decay import LayerDecayOptimWrapperConstructor
from .no_decay import no_decay_parameters
from .probe_grid_constructor import ProbeGridOptimWrapperConstructor

__all__ = [
    'FiniteLossAmpOptimWrapper',
    'FiniteLossOptimWrapper',
    'LayerDecayOptimWrapperConstructor',
    'no_decay_parameters',
    'ProbeGridOptimWrapperConstructor',
]
