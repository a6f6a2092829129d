"""Stop (or skip the step) on a non-finite loss, before NaN reaches the weights."""

import torch
from mmengine.dist import all_reduce
from mmengine.logging import MessageHub, print_log
from mmengine.optim import OptimWrapper
from mmengine.registry import OPTIM_WRAPPERS

NONFINITE_POLICIES = ('raise', 'skip')


class FiniteLossMixin:
    """Checks the loss on every rank before the backward pass of any mmengine OptimWrapper.

    ``nonfinite='raise'`` ends training with an error naming the iteration; ``'skip'`` drops
    the step (no backward, no update) and logs it. All ranks decide together, so distributed
    training neither hangs nor lets one rank step alone. Only the loss is checked: under AMP,
    gradients that overflow in half precision are the grad scaler's to skip, as usual.
    """

    def __init__(self, *args, nonfinite: str = 'raise', **kwargs):
        if nonfinite not in NONFINITE_POLICIES:
            raise ValueError(f'nonfinite must be one of {NONFINITE_POLICIES}, got {nonfinite!r}')
        super().__init__(*args, **kwargs)
        self.nonfinite = nonfinite

    def update_params(self, loss: torch.Tensor, step_kwargs=None, zero_kwargs=None) -> None:
        finite = torch.isfinite(loss.detach()).all().float().reshape(1)
        all_reduce(finite, op='min')
        if finite.item() == 1:
            return super().update_params(loss, step_kwargs, zero_kwargs)
        iteration = MessageHub.get_current_instance().get_info('iter', 0)
        message = (
            f'non-finite loss ({loss.item()}) at iteration {iteration + 1} on at least one rank'
        )
        if self.nonfinite == 'raise':
            raise FloatingPointError(
                message + '; stopping before the weights are updated '
                "(optim_wrapper.nonfinite='skip' skips such steps)"
            )
        print_log(message + ': step skipped', logger='current', level=30)
        self.zero_grad(**(zero_kwargs or {}))


@OPTIM_WRAPPERS.register_module()
class FiniteLossOptimWrapper(FiniteLossMixin, OptimWrapper):
    """mmengine's OptimWrapper with the finite-loss check (see FiniteLossMixin)."""
