"""Mixed precision that keeps the finite-loss check, on an accelerator and on the CPU."""

from contextlib import contextmanager

import torch
from mmengine.device import is_cuda_available, is_mlu_available, is_musa_available, is_npu_available
from mmengine.optim import AmpOptimWrapper, OptimWrapper
from mmengine.registry import OPTIM_WRAPPERS

from .finite_loss import FiniteLossMixin

# What an AMP switch (tools/train.py --amp) turns each wrapper into; AMP wrappers stay.
AMP_FORM = {'FiniteLossOptimWrapper': 'FiniteLossAmpOptimWrapper'}
AMP_WRAPPERS = ('FiniteLossAmpOptimWrapper', 'AmpOptimWrapper')
# --amp DTYPE: the autocast dtype and the grad scaler. bfloat16 has float32's exponent range,
# so its gradients need no loss scaling; float16's underflow without it.
AMP_DTYPES = {'fp16': ('float16', 'dynamic'), 'bf16': ('bfloat16', dict(enabled=False))}


def accelerator_available() -> bool:
    """Where mmengine's AmpOptimWrapper runs (it refuses a machine without one of these)."""
    return is_cuda_available() or is_npu_available() or is_mlu_available() or is_musa_available()


def cpu_grad_scaler(loss_scale):
    """torch's CPU grad scaler from an AmpOptimWrapper ``loss_scale``, and the fixed scale
    ``update`` gets (a float: static scaling)."""
    if loss_scale == 'dynamic':
        return torch.amp.GradScaler('cpu'), None
    if isinstance(loss_scale, float):
        return torch.amp.GradScaler('cpu', init_scale=loss_scale), loss_scale
    if isinstance(loss_scale, dict):
        return torch.amp.GradScaler('cpu', **loss_scale), None
    raise TypeError(f'loss_scale must be a float, a dict or "dynamic", got {loss_scale!r}')


class AnyDeviceAmpOptimWrapper(AmpOptimWrapper):
    """mmengine's AmpOptimWrapper, unchanged where there is an accelerator; on a CPU-only
    machine, ``torch.autocast('cpu', dtype)`` (float16 unless ``dtype`` says otherwise, as the
    CUDA default) and torch's CPU grad scaler, so that a mixed-precision run works there."""

    def __init__(self, loss_scale='dynamic', dtype=None, use_fsdp: bool = False, **kwargs):
        self.on_cpu = not accelerator_available()
        if not self.on_cpu:
            super().__init__(loss_scale=loss_scale, dtype=dtype, use_fsdp=use_fsdp, **kwargs)
            return
        if use_fsdp:
            raise ValueError('use_fsdp=True: FSDP mixed precision needs an accelerator')
        OptimWrapper.__init__(self, **kwargs)
        self.loss_scaler, self._scale_update_param = cpu_grad_scaler(loss_scale)
        if isinstance(dtype, str):
            if dtype not in self.valid_dtypes:
                raise ValueError(f'dtype must be one of {self.valid_dtypes}, got {dtype!r}')
            dtype = getattr(torch, dtype)
        self.cast_dtype = torch.float16 if dtype is None else dtype

    def optim_context(self, model: torch.nn.Module):
        if not self.on_cpu:
            return super().optim_context(model)
        return self._cpu_optim_context(model)

    @contextmanager
    def _cpu_optim_context(self, model):
        with OptimWrapper.optim_context(self, model), torch.autocast('cpu', self.cast_dtype):
            yield


@OPTIM_WRAPPERS.register_module()
class FiniteLossAmpOptimWrapper(FiniteLossMixin, AnyDeviceAmpOptimWrapper):
    """mmengine's AmpOptimWrapper with the finite-loss check: a step that the grad scaler skips
    for overflowing half-precision gradients is normal; a non-finite loss is a failure."""
