"""A process switches mmcv's ops to a kernel set, and refuses one that is not installed."""

import sys

import pytest

from vitspec.mmcv_ops import kernel_sets as ks
from vitspec.mmcv_ops import kernels


def test_vitspecs_kernels_are_always_at_hand():
    sets = ks.kernel_sets()
    assert sets[ks.VITSPEC] is kernels
    assert set(sets) <= {ks.VITSPEC, ks.MMCV}


def test_a_process_switches_to_a_kernel_set(monkeypatch):
    for name in ks.OP_MODULES:  # restored after the test
        module = sys.modules[f'mmcv.ops.{name}']
        monkeypatch.setattr(module, 'ext_module', module.ext_module)
    monkeypatch.setattr(ks, 'kernel_sets', lambda: {ks.VITSPEC: kernels})
    ks.use_kernels(ks.VITSPEC)
    assert all(sys.modules[f'mmcv.ops.{name}'].ext_module is kernels for name in ks.OP_MODULES)
    with pytest.raises(ValueError, match=r"'compiled': here only torchvision .*--mmcv-ops"):
        ks.use_kernels(ks.MMCV)


def test_no_kernel_set_keeps_the_installed_one(monkeypatch):
    nms_module = sys.modules['mmcv.ops.nms']
    before = nms_module.ext_module
    monkeypatch.setattr(ks, 'kernel_sets', lambda: pytest.fail('no kernel set was asked for'))
    ks.use_kernels(None)
    assert nms_module.ext_module is before
