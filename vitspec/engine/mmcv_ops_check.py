"""A run on CUDA stops before its first iteration when mmcv's compiled ops have no CUDA kernels
(a wheel built without nvcc), instead of failing in RoIAlign or NMS with mmcv's
'implementation for device cuda:0 not found' after data loading and the first forward."""

import itertools

from mmcv.ops import get_compiling_cuda_version
from mmengine.hooks import Hook
from mmengine.registry import HOOKS

from vitspec.errors import MmcvOpsError

FIX = (
    'rebuild mmcv with CUDA ops: run tools/install.sh with VITSPEC_CUDA=1 on a machine with '
    "nvcc, or where pip can install torch's CUDA toolkit (see docs/installation.md)"
)


def run_on_cuda(runner) -> bool:
    """Whether the Runner put the model on a CUDA device (it does so before before_run)."""
    model = runner.model
    return any(t.is_cuda for t in itertools.chain(model.parameters(), model.buffers()))


def mmcv_ops_have_cuda() -> bool:
    """Whether mmcv's ops were compiled with CUDA; asks the compiled library, no GPU needed."""
    return get_compiling_cuda_version() != 'not available'


@HOOKS.register_module()
class MmcvCudaOpsCheckHook(Hook):
    priority = 'VERY_HIGH'

    def before_run(self, runner):
        if run_on_cuda(runner) and not mmcv_ops_have_cuda():
            raise MmcvOpsError(f"this run is on CUDA, but mmcv's ops are CPU-only: {FIX}")
