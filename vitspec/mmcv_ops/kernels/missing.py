"""Kernels of mmcv's compiled ops that have no PyTorch / torchvision stand-in here."""

INSTALL_FIX = (
    'install mmcv with its compiled ops: tools/install.sh --mmcv-ops (see docs/installation.md)'
)


class MissingKernelError(NotImplementedError):
    """An mmcv op whose kernel only mmcv's compiled build has."""


def missing_kernel(name: str, why: str = ''):
    """A function under the kernel's name that raises at its first call, naming the op."""

    def kernel(*args, **kwargs):
        reason = f' ({why})' if why else ''
        raise MissingKernelError(
            f"mmcv's op kernel '{name}' is not available without mmcv's compiled ops{reason}: "
            f'{INSTALL_FIX}'
        )

    kernel.__name__ = kernel.__qualname__ = name
    return kernel
