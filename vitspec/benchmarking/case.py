"""One model in one setting, in the process that runs it."""

import time
from contextlib import nullcontext

import torch
from torch.utils.flop_counter import FlopCounterMode

from .machine import DTYPES
from .memory import step_memory_bytes
from .models import base_name, build
from .op_counts import inference_op_counts, op_counts


def _sum(out):
    if isinstance(out, (tuple, list)):
        return sum(_sum(o) for o in out)
    return out.float().sum()


class Case:
    """One model in one setting: builds it once, runs one timed batch per call."""

    def __init__(self, name, size, img, batch, dtype, mode, device):
        torch.manual_seed(0)
        self.name, self.mode, self.device, self.dtype = name, mode, device, DTYPES[dtype]
        model, compiled = base_name(name)
        self.eager = build(model, size).to(device)
        self.eager.train(mode == 'training')  # mmseg's ViT.train() returns None: no chaining
        self.model = torch.compile(self.eager) if compiled else self.eager
        self.x = torch.randn(batch, 3, img, img, device=device)
        self.autocast = (
            nullcontext() if dtype == 'fp32' else torch.autocast(device.type, dtype=self.dtype)
        )
        # the first step compiles: its time, apart from the timed steps (None: eager)
        self.compile_s = self.timed() if compiled else None

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
        """The work of one step, counted on the eager model (the same operations)."""
        model, self.model = self.model, self.eager
        try:
            with FlopCounterMode(display=False) as counter:
                self.step()
        finally:
            self.model = model
        return counter.get_total_flops()

    def op_counts(self):
        """aten ops, casts and GEMMs of one training step, or one inference forward, at batch 2
        on the eager model: what each launches as kernels (None for a compiled model, whose
        kernels inductor fuses)."""
        if self.model is not self.eager:
            return None
        x = (self.x[:2],)
        if self.mode == 'inference':
            return inference_op_counts(self.eager, x, self.dtype, self.device.type).summary()
        return op_counts(self.eager, x, self.dtype, self.device.type).summary()

    def compile_seconds(self):
        return self.compile_s

    def memory_bytes(self):
        """Peak allocated bytes on CUDA; on CPU, the bytes of tensors saved for backward."""
        cpu = self.device.type != 'cuda'
        if cpu and (self.mode == 'inference' or self.model is not self.eager):
            return None  # compiled: saved-tensor hooks would send it back through dynamo
        return step_memory_bytes(self.step, self.device)
