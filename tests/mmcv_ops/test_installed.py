"""Which kernels mmcv's ops run on, read off the installed library: vitspec's serve every device,
a compiled build CUDA only with nvcc's kernels in it."""

import mmcv.ops

from vitspec.mmcv_ops import installed


def test_ops_probe_reads_the_library_not_mmcvs_version_call(monkeypatch, tmp_path):
    """A compiled CPU-only build: the probe says so from its library, without calling mmcv's
    get_compiling_cuda_version, which crashes mmcv 2.1.0 built with CUDA 13."""

    def crash():
        raise AssertionError('get_compiling_cuda_version called')

    monkeypatch.setattr(mmcv.ops, 'get_compiling_cuda_version', crash)
    ext = tmp_path / '_ext.cpython-311-x86_64-linux-gnu.so'
    ext.write_bytes(b'\x7fELF' + b'\0' * 64)
    monkeypatch.setattr(installed, 'ops_kernels', lambda: installed.COMPILED)
    monkeypatch.setattr(installed, 'compiled_ops_library', lambda: ext)
    assert installed.mmcv_ops_have_kernels('cuda') is False
    assert installed.mmcv_ops_have_kernels('cpu') is True
    ext.write_bytes(b'\x7fELF.nv_fatbin')
    assert installed.mmcv_ops_have_kernels('cuda') is True


def test_vitspecs_kernels_serve_every_device(monkeypatch):
    monkeypatch.setattr(installed, 'ops_kernels', lambda: installed.TORCHVISION)
    assert installed.mmcv_ops_have_kernels('cuda') is True
    assert installed.mmcv_ops_have_kernels('cpu') is True


def test_the_installed_kernels_are_recognised():
    """tools/install.sh's default installs vitspec's kernels as mmcv._ext; --mmcv-ops the
    compiled library."""
    kind = installed.ops_kernels()
    assert kind in (installed.TORCHVISION, installed.COMPILED)
    assert (installed.compiled_ops_library() is None) == (kind == installed.TORCHVISION)
    assert installed.mmcv_ops_have_kernels('cpu')
