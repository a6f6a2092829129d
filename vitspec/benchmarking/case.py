"""One model in one setting, in the process that runs it."""

import time
from contextlib import nullcontext

import torch
from torch.utils.flop_counter import FlopCounterMode

from .models import build


def _sum(out):
    if isinstance(out, (tuple, list)):
        return sum(_sum(o) for o in out)
    return out.float().sum()


class Case:
    """One model in one setting: builds it once, runs one timed batch per call."""

    def __init__(self, name, size, img, batch, dtype, mode, device):
        torch.manual_seed(0)
        self.name, self.mode, self.device = name, mode, device
        self.model = build(name, size).to(device)
        self.model.train(mode == 'training')  # mmseg's ViT.train() returns None: no chaining
        self.x = torch.randn(batch, 3, img, img, device=device)
        self.autocast = (
            torch.autocast(device.type, dtype=torch.bfloat16) if dtype == 'bf16' else nullcontext()
        )

    def step(self):
        if self.mode == 'inference':
            with torch.no_grad(), self.autocast:
                self.model(self.x)
        else:
            with self.autocast:
                loss = _sum(self.model(self.x))
            loss.backward()
            self.model.zero_grad(set_to_none=True)

    def timed(self):
        sync = torch.cuda.synchronize if self.device.type == 'cuda' else (lambda: None)
        sync()
        start = time.perf_counter()
        self.step()
        sync()
        return time.perf_counter() - start

    def flops(self):
        with FlopCounterMode(display=False) as counter:
            self.step()
        return counter.get_total_flops()

    def memory_bytes(self):
        """Peak allocated bytes on CUDA; on CPU, the bytes of tensors saved for backward."""
        if self.device.type == 'cuda':
            torch.cuda.reset_peak_memory_stats()
            self.step()
            return torch.cuda.max_memory_allocated()
        if self.mode == 'inference':
            return None
        saved = 0

        def pack(t):
            nonlocal saved
            saved += t.numel() * t.element_size()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), self.autocast:
            loss = _sum(self.model(self.x))
        loss.backward()
        self.model.zero_grad(set_to_none=True)
        return saved
