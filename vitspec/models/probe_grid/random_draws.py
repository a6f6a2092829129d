"""A probe head draws the random numbers its single run draws, whatever the other heads of a grid
draw: at initialization and at every training step.

Steps: every run seeds torch before each iteration from (seed, iteration) (IterationSeedHook),
and the frozen backbone draws nothing, so a single run's head starts each step from that state;
in a grid, each head starts its step from it too (``DrawsFrom``). Initialization: a head's
initial weights are drawn from a generator seeded by the run's seed alone (``reinitialize``,
called by LinearProbeHook before a fresh probe trains, single or grid), not from wherever the
global generator stood after building the rest of the model.
"""

from contextlib import contextmanager
from typing import Iterable

import torch
from mmengine.model import BaseModule
from torch import nn


def _cuda_devices() -> list:
    return list(range(torch.cuda.device_count())) if torch.cuda.is_initialized() else []


class DrawsFrom:
    """The state of torch's generators (CPU and CUDA) now; ``replay()`` puts them back to it."""

    def __init__(self):
        self.cpu = torch.get_rng_state()
        self.cuda = [torch.cuda.get_rng_state(d) for d in _cuda_devices()]

    def replay(self) -> None:
        torch.set_rng_state(self.cpu)
        for device, state in zip(_cuda_devices(), self.cuda):
            torch.cuda.set_rng_state(state, device)


@contextmanager
def _seeded(seed: int):
    with torch.random.fork_rng(devices=_cuda_devices()):
        torch.manual_seed(seed)
        yield


def reinitialize(parts: Iterable[nn.Module], seed: int) -> None:
    """Initialize ``parts`` again, drawing from ``seed``: every submodule's ``reset_parameters``
    (what its constructor did), then each part's ``init_weights`` (the config's ``init_cfg``).
    torch's global generators are left as they were."""
    with _seeded(seed):
        for part in parts:
            for module in part.modules():
                if hasattr(module, 'reset_parameters'):
                    module.reset_parameters()
            if isinstance(part, BaseModule):
                for module in part.modules():
                    if isinstance(module, BaseModule):
                        module._is_init = False  # mmengine's flag that init_weights has run
                part.init_weights()
