"""Stop (or skip the step) on a non-finite loss or gradients, before NaN reaches the weights."""

import math

import torch
from mmengine.dist import all_reduce, get_world_size
from mmengine.logging import print_log
from mmengine.optim import OptimWrapper
from mmengine.registry import OPTIM_WRAPPERS

from vitspec.errors import ConfigError

from .skipped_steps import DEFAULT_MAX_SKIPPED_STEPS, SkippedSteps, current_iteration

NONFINITE_POLICIES = ('raise', 'skip')
FP16_HINT = (
    'Gradients that stay non-finite however far the loss scale falls are NaN, not an overflow: '
    'a float32 or --amp bf16 run stops at the first such step and names it. '
)


class FiniteLossMixin:
    """Checks the loss before the backward pass and the gradients before the step, on every
    rank, for any mmengine OptimWrapper; caps the steps skipped in a row.

    A non-finite loss, or non-finite gradients where no grad scaler runs (float32, bfloat16):
    ``nonfinite='raise'`` ends training with an error naming the iteration; ``'skip'`` drops the
    step (no update) and logs it. Under float16 loss scaling, gradients that overflow are the
    grad scaler's to skip, as usual. Every skipped step counts: ``max_skipped_steps`` of them in
    a row (default 20, None: no cap) stop the run, as does a run that ends without one step taken
    (SkippedSteps). All ranks decide together, so
    distributed training neither hangs nor lets one rank step alone.
    """

    def __init__(
        self,
        *args,
        nonfinite: str = 'raise',
        max_skipped_steps=DEFAULT_MAX_SKIPPED_STEPS,
        **kwargs,
    ):
        if nonfinite not in NONFINITE_POLICIES:
            raise ConfigError(f'nonfinite must be one of {NONFINITE_POLICIES}, got {nonfinite!r}')
        self.skipped_steps = SkippedSteps(max_skipped_steps)
        super().__init__(*args, **kwargs)
        self.nonfinite = nonfinite

    def update_params(self, loss: torch.Tensor, step_kwargs=None, zero_kwargs=None) -> None:
        if all_ranks_finite(loss.detach()):
            return super().update_params(loss, step_kwargs, zero_kwargs)
        self._nonfinite_step(f'non-finite loss ({loss.item()})')
        self.zero_grad(**(zero_kwargs or {}))

    def update_params_in_turn(self, named_losses) -> None:
        """The step ``update_params`` would take from the sum of several losses over disjoint
        parameters (the heads of a probe grid), with each loss's backward run before the next
        loss is computed, so that their graphs never coexist. ``named_losses`` yields
        ``(name, loss)``; a non-finite one is handled as a non-finite loss, naming its head."""
        nonfinite = []
        for name, loss in named_losses:
            if not torch.isfinite(loss.detach()).all():
                nonfinite.append(name)
                continue
            loss = self.scale_loss(loss)
            scaler = self._active_grad_scaler()
            (loss if scaler is None else scaler.scale(loss)).backward()
        self._inner_count += 1  # one backward of the sum, as update_params counts it
        average_gradients(self.optimizer)  # what DDP does during a backward
        if not all_ranks_finite(torch.tensor(float('nan') if nonfinite else 0.0)):
            self._nonfinite_step(f'non-finite loss of {", ".join(nonfinite) or "a head"}')
            self.zero_grad()
        elif self.should_update():
            self.step()
            self.zero_grad()

    def step(self, **kwargs) -> None:
        """OptimWrapper.step (AmpOptimWrapper.step under loss scaling) after the gradient check;
        ``update_params`` zeroes the gradients of a skipped step as of any other."""
        scaler = self._active_grad_scaler()
        if scaler is not None:
            scaler.unscale_(self.optimizer)  # its overflow check; clipping sees true gradients
        if not all_ranks_finite(max_abs_gradient(self.optimizer)):
            if scaler is None:
                self._nonfinite_step('non-finite gradients of a finite loss')
            else:
                scaler.update(self._scale_update_param)  # lowers the scale, as a skipped step
                reason = f'non-finite float16 gradients (loss scale now {scaler.get_scale():g})'
                self.skipped_steps.skip(reason, FP16_HINT, self._max_counts)
            return
        self.skipped_steps.stepped()
        if self.clip_grad_kwargs:
            self._clip_grad()
        if scaler is None:
            self.optimizer.step(**kwargs)
        else:
            scaler.step(self.optimizer, **kwargs)
            scaler.update(self._scale_update_param)

    def _clip_grad(self) -> None:
        """mmengine's clipping, except that the heads of a probe grid (parameter groups named
        by ``probe``) are each clipped on their own, as their single runs clip them."""
        probes = {}
        for group in self.optimizer.param_groups:
            probes.setdefault(group.get('probe'), []).extend(group['params'])
        if list(probes) == [None]:
            return super()._clip_grad()
        for params in probes.values():
            params = [p for p in params if p.requires_grad and p.grad is not None]
            if params:
                self.clip_func(params, **self.clip_grad_kwargs)

    def _active_grad_scaler(self):
        scaler = getattr(self, 'loss_scaler', None)
        return scaler if scaler is not None and scaler.is_enabled() else None

    def _nonfinite_step(self, what: str) -> None:
        message = f'{what} at iteration {current_iteration()} on at least one rank'
        if self.nonfinite == 'raise':
            raise FloatingPointError(
                message + '; stopping before the weights are updated '
                "(optim_wrapper.nonfinite='skip' skips such steps)"
            )
        print_log(message + ': step skipped', logger='current', level=30)
        self.skipped_steps.skip(what, last_iteration=self._max_counts)


def all_ranks_finite(value: torch.Tensor) -> bool:
    finite = torch.isfinite(value).all().float().reshape(1)
    all_reduce(finite, op='min')
    return finite.item() == 1


def average_gradients(optimizer) -> None:
    """Each gradient averaged over the ranks (nothing to do in a single process)."""
    if get_world_size() > 1:
        for group in optimizer.param_groups:
            for param in group['params']:
                if param.grad is not None:
                    all_reduce(param.grad, op='mean')


def max_abs_gradient(optimizer) -> torch.Tensor:
    """The largest gradient magnitude of the optimizer's parameters: NaN or inf if any is."""
    params = [p for group in optimizer.param_groups for p in group['params']]
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return torch.zeros((), device=params[0].device if params else 'cpu')
    return torch.nn.utils.get_total_norm(grads, norm_type=math.inf)


@OPTIM_WRAPPERS.register_module()
class FiniteLossOptimWrapper(FiniteLossMixin, OptimWrapper):
    """mmengine's OptimWrapper with the finite-loss check (see FiniteLossMixin)."""
