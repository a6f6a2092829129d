import sys

import mmcv.ops  # noqa: F401  (loads the op modules patched below)
import pytest

import vitspec.mmcv_ops.kernels as kernels
from vitspec.mmcv_ops.kernel_sets import OP_MODULES


@pytest.fixture
def torchvision_kernels(monkeypatch):
    """mmcv's op modules (its autograd functions, modules and wrappers) call vitspec's kernels,
    whichever mmcv build is installed."""
    for name in OP_MODULES:
        monkeypatch.setattr(sys.modules[f'mmcv.ops.{name}'], 'ext_module', kernels)
    return kernels
