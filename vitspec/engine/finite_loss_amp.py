"""Mixed precision that keeps the finite-loss check."""

from mmengine.optim import AmpOptimWrapper
from mmengine.registry import OPTIM_WRAPPERS

from .finite_loss import FiniteLossMixin

# What an AMP switch (tools/train.py --amp) turns each wrapper into; AMP wrappers stay.
AMP_FORM = {'FiniteLossOptimWrapper': 'FiniteLossAmpOptimWrapper'}
AMP_WRAPPERS = ('FiniteLossAmpOptimWrapper', 'AmpOptimWrapper')


@OPTIM_WRAPPERS.register_module()
class FiniteLossAmpOptimWrapper(FiniteLossMixin, AmpOptimWrapper):
    """mmengine's AmpOptimWrapper with the finite-loss check: a step that the grad scaler skips
    for overflowing half-precision gradients is normal; a non-finite loss is a failure."""
