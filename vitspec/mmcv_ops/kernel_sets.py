"""The kernel sets mmcv's ops can run on in one process, and the switch between them: vitspec's
(the ``kernels`` package) always, mmcv's compiled library where tools/install.sh --mmcv-ops
installed it. mmcv's op modules call whichever module their ``ext_module`` names; the benchmark
and ``ConfigCase(kernels=...)`` set it."""

import importlib
import sys
from typing import Dict

import mmcv.ops  # noqa: F401  (loads the op modules whose ext_module `use` sets)

from vitspec.errors import ConfigError

from . import kernels
from .installed import COMPILED, TORCHVISION, ops_kernels

# mmcv's op modules that call the kernels mmseg, mmdet and vitspec use
OP_MODULES = (
    'nms',
    'roi_align',
    'deform_conv',
    'modulated_deform_conv',
    'multi_scale_deform_attn',
    'focal_loss',
)
VITSPEC = TORCHVISION
MMCV = COMPILED


def kernel_sets() -> Dict[str, object]:
    """The kernel modules at hand: vitspec's always, mmcv's compiled library when installed."""
    sets = {VITSPEC: kernels}
    if ops_kernels() == COMPILED:
        sets[MMCV] = importlib.import_module('mmcv._ext')
    return sets


def use(kernel_set) -> None:
    """mmcv's op modules call `kernel_set` from now on."""
    for name in OP_MODULES:
        sys.modules[f'mmcv.ops.{name}'].ext_module = kernel_set


def use_kernels(name=None) -> None:
    """This process's mmcv ops on the kernel set `name` (VITSPEC or MMCV; None: as installed);
    MMCV where the compiled ops are not installed is a ConfigError."""
    if name is None:
        return
    sets = kernel_sets()
    if name not in sets:
        raise ConfigError(
            f"mmcv kernels {name!r}: here only {', '.join(sets)} (mmcv's compiled ops: "
            'tools/install.sh --mmcv-ops)'
        )
    use(sets[name])
