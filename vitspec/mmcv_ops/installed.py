"""Which kernels the installed mmcv's ops run on, and whether they serve a device: vitspec's
PyTorch / torchvision kernels (tools/install.sh's default) run on every device; mmcv's compiled
ops (tools/install.sh --mmcv-ops) have CUDA kernels only when built with nvcc; mmcv-lite has none.
Read by the run-time check (device_check.py), the autocast wrappers and tools/gpu_check.sh."""

import importlib
import importlib.util
import mmap

FIX = (
    'run tools/install.sh (mmcv without compiled ops: its ops run on PyTorch / torchvision on '
    'every device), or rebuild the compiled ops for CUDA: VITSPEC_CUDA=1 tools/install.sh '
    "--mmcv-ops on a machine with nvcc, or where pip can install torch's CUDA toolkit (see "
    'docs/installation.md)'
)
NO_OPS_FIX = 'install mmcv with its ops: run tools/install.sh (see docs/installation.md)'
TORCHVISION = 'torchvision'
COMPILED = 'compiled'


def library_has_cuda_kernels(path) -> bool:
    """Whether a compiled library holds CUDA device code (the ELF section nvcc writes kernels
    to); a CPU-only build has none."""
    with open(path, 'rb') as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        return data.find(b'.nv_fatbin') != -1


def ops_kernels():
    """Whose kernels mmcv's ops run on: TORCHVISION (vitspec.mmcv_ops.kernels installed as
    mmcv._ext),
    COMPILED (mmcv's compiled library) or None (mmcv-lite: no mmcv._ext)."""
    spec = importlib.util.find_spec('mmcv._ext')
    if spec is None:
        return None
    if spec.origin and spec.origin.endswith('.py'):
        kernels = importlib.import_module('mmcv._ext').__dict__.get('KERNELS')
        return TORCHVISION if kernels == TORCHVISION else None
    return COMPILED


def compiled_ops_library():
    """The path of mmcv's compiled ops (mmcv._ext), or None where there are none."""
    if ops_kernels() != COMPILED:
        return None
    return importlib.util.find_spec('mmcv._ext').origin


def mmcv_ops_have_kernels(device_type: str) -> bool:
    """Whether mmcv's compiled ops have kernels for `device_type`, read off the compiled library
    without running it: every build with ops has CPU kernels (and whatever mmcv dispatches to
    npu / mlu, which is not probed here), CUDA kernels only a build with nvcc. Not mmcv's
    get_compiling_cuda_version(): mmcv 2.1.0 built with CUDA 13.0 (torch 2.11, H100) crashed the
    process with SIGSEGV in it. vitspec's kernels run where torch and torchvision do."""
    if ops_kernels() == TORCHVISION:
        return True
    library = compiled_ops_library()
    if library is None:
        return False
    return device_type != 'cuda' or library_has_cuda_kernels(library)


def describe_ops() -> str:
    """Which ops a run uses, in words (tools/gpu_check.sh's first line about them)."""
    kind = ops_kernels()
    if kind == TORCHVISION:
        return "vitspec's PyTorch / torchvision kernels (mmcv without compiled ops)"
    if kind == COMPILED:
        library = compiled_ops_library()
        cuda = 'with' if library_has_cuda_kernels(library) else 'without'
        return f"mmcv's compiled ops {cuda} CUDA kernels ({library})"
    return 'none (mmcv-lite)'


def missing_kernels_message(device_type: str) -> str:
    if device_type == 'cuda':
        return f"this run is on CUDA, but mmcv's compiled ops are CPU-only: {FIX}"
    return f'this run is on {device_type}, but mmcv has no ops (mmcv-lite): {NO_OPS_FIX}'
