"""A trainable backbone parameter that no loss reaches is an error, named, at the first step.

Single-process training would leave it untouched without a word; DDP without
find_unused_parameters stops at the second iteration with an error that names no parameter.
An iteration whose optimizer step was skipped (``nonfinite='skip'`` on a NaN loss runs no
backward pass at all) is not judged: the check waits for the first step taken.
"""

from mmengine.hooks import Hook
from mmengine.model import is_model_wrapper
from mmengine.optim import OptimWrapperDict
from mmengine.registry import HOOKS

from vitspec.errors import UnusedParameterError


@HOOKS.register_module()
class UnusedParameterCheckHook(Hook):
    """Records which trainable parameters of ``module`` receive a gradient until the first
    training iteration whose optimizer step is taken, and fails after it if any did not."""

    priority = 'VERY_HIGH'

    def __init__(self, module: str = 'backbone'):
        self.module = module
        self._handles, self._reached = [], set()

    def before_train(self, runner) -> None:
        model = runner.model.module if is_model_wrapper(runner.model) else runner.model
        module = getattr(model, self.module, None)
        if module is None or runner.iter > 0:
            return
        self._params = {n: p for n, p in module.named_parameters() if p.requires_grad}
        for name, p in self._params.items():
            self._handles.append(
                p.register_post_accumulate_grad_hook(lambda _, name=name: self._reached.add(name))
            )

    def after_train_iter(self, runner, batch_idx: int, data_batch=None, outputs=None) -> None:
        if not self._handles or _step_skipped(runner):
            return
        for handle in self._handles:
            handle.remove()
        self._handles = []
        unused = [n for n in self._params if n not in self._reached]
        if unused:
            raise UnusedParameterError(
                f'{len(unused)} trainable {self.module} parameters got no gradient up to the '
                f'first iteration that took an optimizer step (iteration {runner.iter + 1}): '
                f'{", ".join(unused[:8])}{" ..." if len(unused) > 8 else ""}. Freeze '
                f'them (requires_grad=False) or use them; DDP would stop on them.'
            )


def _step_skipped(runner) -> bool:
    """Whether the iteration just run skipped its optimizer step (vitspec's finite-loss
    wrappers count skipped steps; any other wrapper steps)."""
    wrapper = getattr(runner, 'optim_wrapper', None)
    wrappers = wrapper.values() if isinstance(wrapper, OptimWrapperDict) else [wrapper]
    return any(getattr(getattr(w, 'skipped_steps', None), 'in_a_row', 0) > 0 for w in wrappers)
