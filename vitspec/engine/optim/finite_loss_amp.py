"""Mixed precision that keeps the finite-loss check: one code path for CUDA and the CPU."""

from contextlib import contextmanager

import torch
from mmengine.device import get_device
from mmengine.optim import AmpOptimWrapper, OptimWrapper
from mmengine.registry import OPTIM_WRAPPERS

from vitspec.errors import ConfigError
from vitspec.mmcv_ops.autocast import run_mmcv_ops_in_float32

from .finite_loss import FiniteLossMixin

# What an AMP switch (tools/train.py --amp) turns each wrapper into; AMP wrappers stay.
AMP_FORM = {'FiniteLossOptimWrapper': 'FiniteLossAmpOptimWrapper'}
AMP_WRAPPERS = ('FiniteLossAmpOptimWrapper', 'AmpOptimWrapper')
# --amp DTYPE: the autocast dtype and the grad scaler. bfloat16 has float32's exponent range,
# so its gradients need no loss scaling; float16's underflow without it.
AMP_DTYPES = {'fp16': ('float16', 'dynamic'), 'bf16': ('bfloat16', dict(enabled=False))}


# Devices served by torch.autocast and torch.amp.GradScaler here; others (npu, mlu, musa) get
# mmengine's AmpOptimWrapper unchanged.
TORCH_AMP_DEVICES = ('cuda', 'cpu')


def grad_scaler(device: str, loss_scale, use_fsdp: bool = False):
    """torch's grad scaler for `device` from an AmpOptimWrapper ``loss_scale``, and the fixed
    scale ``update`` gets (a float: static scaling)."""
    if use_fsdp:
        from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler as scaler
    else:
        scaler = torch.amp.GradScaler
    if loss_scale == 'dynamic':
        return scaler(device), None
    if isinstance(loss_scale, float):
        return scaler(device, init_scale=loss_scale), loss_scale
    if isinstance(loss_scale, dict):
        return scaler(device, **loss_scale), None
    raise TypeError(f'loss_scale must be a float, a dict or "dynamic", got {loss_scale!r}')


class AnyDeviceAmpOptimWrapper(AmpOptimWrapper):
    """mmengine's AmpOptimWrapper for a ``device`` type (default: mmengine's ``get_device()``,
    where the Runner puts the model): ``torch.autocast(device, dtype)`` (float16 unless ``dtype``
    says otherwise, mmengine's CUDA default) and torch's grad scaler for that device. mmengine's
    own refuses a machine without an accelerator; this one runs the same lines on CUDA and on the
    CPU, so a CPU test executes the GPU path. mmcv's ops whose kernels refuse the autocast dtype
    run in float32 (vitspec/mmcv_ops/autocast.py: NMS and RoIAlign on the CPU, deformable
    attention in bfloat16 on CUDA)."""

    def __init__(
        self, loss_scale='dynamic', dtype=None, use_fsdp: bool = False, device=None, **kwargs
    ):
        self.device = str(device).split(':')[0] if device else get_device()
        if self.device not in TORCH_AMP_DEVICES:
            super().__init__(loss_scale=loss_scale, dtype=dtype, use_fsdp=use_fsdp, **kwargs)
            return
        OptimWrapper.__init__(self, **kwargs)
        run_mmcv_ops_in_float32()
        self.loss_scaler, self._scale_update_param = grad_scaler(self.device, loss_scale, use_fsdp)
        if isinstance(dtype, str):
            if dtype not in self.valid_dtypes:
                raise ConfigError(f'dtype must be one of {self.valid_dtypes}, got {dtype!r}')
            dtype = getattr(torch, dtype)
        self.cast_dtype = torch.float16 if dtype is None else dtype

    def optim_context(self, model: torch.nn.Module):
        if self.device not in TORCH_AMP_DEVICES:
            return super().optim_context(model)
        return self._autocast_context(model)

    @contextmanager
    def _autocast_context(self, model):
        with OptimWrapper.optim_context(self, model), torch.autocast(self.device, self.cast_dtype):
            yield


@OPTIM_WRAPPERS.register_module()
class FiniteLossAmpOptimWrapper(FiniteLossMixin, AnyDeviceAmpOptimWrapper):
    """mmengine's AmpOptimWrapper with the finite-loss check: a step that the grad scaler skips
    for overflowing half-precision gradients is normal; a non-finite loss is a failure."""
