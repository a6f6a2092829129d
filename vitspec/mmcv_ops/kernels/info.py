"""What mmcv's environment report (mmcv.utils.collect_env) prints for these kernels."""

KERNELS = 'torchvision'


def get_compiler_version() -> str:
    return 'none (mmcv ops from PyTorch / torchvision, vitspec)'


def get_compiling_cuda_version() -> str:
    return 'not compiled'
