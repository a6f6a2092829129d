"""EoMT's mask annealing: the query-to-patch attention mask of each query block is dropped with
a probability that rises from 0 to 1 over its own span of iterations.

tue-mps/eomt ``training/lightning_module.py`` (``mask_annealing``, ``on_train_batch_end``): the
probability that a block keeps the mask is 1 before ``start_iters[i]``, 0 from ``end_iters[i]``
on, and ``(1 - progress) ** power`` in between, ``progress = (it - start) / (end - start)``;
``power`` is its ``poly_power`` (0.9). Upstream sets the value after each optimizer step from
the global step, so the step of iteration ``it`` (0-based) sees ``p(it)`` and a validation after
``n`` iterations sees ``p(n)``; this hook does the same from ``runner.iter``. Its published
configs start block ``i`` at ``(i + 1) * P`` and end it at ``(i + 2) * P`` (ADE20K semantic
EoMT-L: ``P = 6520``), so the blocks lose their masks one after another.
"""

from typing import Sequence

import torch
from mmengine.hooks import Hook
from mmengine.model import is_model_wrapper
from mmengine.registry import HOOKS

from vitspec.errors import ConfigError


def mask_keep_probability(it: int, start: int, end: int, power: float = 0.9) -> float:
    """The probability that a block's attention mask is applied at iteration ``it``."""
    if it < start:
        return 1.0
    if it >= end:
        return 0.0
    return (1.0 - (it - start) / (end - start)) ** power


@HOOKS.register_module()
class MaskAnnealingHook(Hook):
    """Writes ``attn_mask_probs[i] = mask_keep_probability(iter, start_iters[i], end_iters[i],
    power)`` into the one module of the model that has an ``attn_mask_probs`` buffer (EoMT's
    network), before each training iteration and after it (for the validation that may follow).

    Args:
        start_iters: per query block, the iteration at which its mask starts to fade.
        end_iters: per query block, the iteration from which it is off.
        power: the polynomial power (upstream's ``poly_power``).
    """

    priority = 'NORMAL'

    def __init__(self, start_iters: Sequence[int], end_iters: Sequence[int], power: float = 0.9):
        start_iters, end_iters = list(start_iters), list(end_iters)
        if len(start_iters) != len(end_iters):
            raise ConfigError(
                f'MaskAnnealingHook: {len(start_iters)} start_iters but {len(end_iters)} end_iters'
            )
        for i, (start, end) in enumerate(zip(start_iters, end_iters)):
            if not 0 <= start < end:
                raise ConfigError(
                    f'MaskAnnealingHook: block {i} needs 0 <= start_iters < end_iters, got '
                    f'{start} and {end}'
                )
        self.start_iters, self.end_iters, self.power = start_iters, end_iters, power

    def probabilities(self, it: int) -> list:
        return [
            mask_keep_probability(it, start, end, self.power)
            for start, end in zip(self.start_iters, self.end_iters)
        ]

    def _probs_buffer(self, runner) -> torch.Tensor:
        model = runner.model.module if is_model_wrapper(runner.model) else runner.model
        found = [m.attn_mask_probs for m in model.modules() if hasattr(m, 'attn_mask_probs')]
        if len(found) != 1:
            raise ConfigError(
                f'MaskAnnealingHook needs exactly one module with attn_mask_probs in the model, '
                f'found {len(found)}'
            )
        probs = found[0]
        if probs.numel() != len(self.start_iters):
            raise ConfigError(
                f'MaskAnnealingHook: start_iters / end_iters give {len(self.start_iters)} '
                f'blocks but the model has {probs.numel()} (attn_mask_probs)'
            )
        return probs

    def _set(self, runner, it: int) -> None:
        probs = self._probs_buffer(runner)
        with torch.no_grad():
            probs.copy_(torch.tensor(self.probabilities(it), dtype=probs.dtype))

    def before_train_iter(self, runner, batch_idx: int, data_batch=None) -> None:
        self._set(runner, runner.iter)

    def after_train_iter(self, runner, batch_idx: int, data_batch=None, outputs=None) -> None:
        self._set(runner, runner.iter + 1)
