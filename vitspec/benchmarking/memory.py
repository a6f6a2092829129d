"""The memory one step takes: peak allocated on CUDA; on CPU, where no allocator keeps a peak,
the peak of the bytes autograd holds saved for backward (activation memory): a step with one
backward holds all it saved until then, a probe grid's step one head's at a time."""

import torch


class _Saved:
    """A tensor autograd saved, counted while the graph holds it."""

    def __init__(self, tensor, counter):
        self.tensor, self.counter = tensor, counter
        self.bytes = tensor.numel() * tensor.element_size()
        counter.alive += self.bytes
        counter.peak = max(counter.peak, counter.alive)

    def __del__(self):
        self.counter.alive -= self.bytes


class _Counter:
    alive = peak = 0


def step_memory_bytes(step, device: torch.device) -> int:
    """Run ``step()`` once and return its memory (see the module's docstring)."""
    if device.type == 'cuda':
        torch.cuda.reset_peak_memory_stats(device)
        step()
        return torch.cuda.max_memory_allocated(device)
    counter = _Counter()
    with torch.autograd.graph.saved_tensors_hooks(
        lambda t: _Saved(t, counter), lambda saved: saved.tensor
    ):
        step()
    return counter.peak
