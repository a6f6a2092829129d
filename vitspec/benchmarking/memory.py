"""The memory one step takes: peak allocated on CUDA; on CPU, where no allocator keeps a peak,
the bytes of the tensors autograd saves for backward (activation memory)."""

import torch


def step_memory_bytes(step, device: torch.device) -> int:
    """Run ``step()`` once and return its memory (see the module's docstring)."""
    if device.type == 'cuda':
        torch.cuda.reset_peak_memory_stats(device)
        step()
        return torch.cuda.max_memory_allocated(device)
    saved = 0

    def pack(t):
        nonlocal saved
        saved += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        step()
    return saved
