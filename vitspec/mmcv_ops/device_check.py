"""A run stops before its first iteration when mmcv's ops have no kernels for the device the
model is on (compiled ops, tools/install.sh --mmcv-ops: CUDA needs a wheel built with nvcc;
mmcv-lite: no kernels at all), instead of failing in RoIAlign or NMS with mmcv's 'implementation
for device cuda:0 not found' after data loading and the first forward."""

import itertools

from mmengine.hooks import Hook
from mmengine.registry import HOOKS

from vitspec.errors import MmcvOpsError

from . import installed


def model_device_types(model) -> set:
    """The device types ('cpu', 'cuda', ...) of the model's parameters and buffers; the Runner
    has moved the model to its device before before_run."""
    return {t.device.type for t in itertools.chain(model.parameters(), model.buffers())}


@HOOKS.register_module()
class MmcvCudaOpsCheckHook(Hook):
    """The check for every device the model is on (the name is kept: configs declare it)."""

    priority = 'VERY_HIGH'

    def before_run(self, runner):
        for device_type in sorted(model_device_types(runner.model)):
            if not installed.mmcv_ops_have_kernels(device_type):
                raise MmcvOpsError(installed.missing_kernels_message(device_type))
