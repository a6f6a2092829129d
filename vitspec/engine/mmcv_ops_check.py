"""A run on CUDA stops before its first iteration when mmcv's compiled ops have no CUDA kernels
(a wheel built without nvcc), instead of failing in RoIAlign or NMS with mmcv's
'implementation for device cuda:0 not found' after data loading and the first forward."""

import importlib.util
import itertools
import mmap

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


def library_has_cuda_kernels(path) -> bool:
    """Whether a compiled library holds CUDA device code (the ELF section nvcc writes kernels
    to); a CPU-only build has none."""
    with open(path, 'rb') as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        return data.find(b'.nv_fatbin') != -1


def mmcv_ops_have_cuda() -> bool:
    """Whether mmcv's ops were compiled with CUDA, read off the compiled library: no GPU needed.
    Not mmcv's get_compiling_cuda_version(): mmcv 2.1.0 built with CUDA 13.0 (torch 2.11, H100)
    crashed the process with SIGSEGV in it."""
    return library_has_cuda_kernels(importlib.util.find_spec('mmcv._ext').origin)


@HOOKS.register_module()
class MmcvCudaOpsCheckHook(Hook):
    priority = 'VERY_HIGH'

    def before_run(self, runner):
        if run_on_cuda(runner) and not mmcv_ops_have_cuda():
            raise MmcvOpsError(f"this run is on CUDA, but mmcv's ops are CPU-only: {FIX}")
