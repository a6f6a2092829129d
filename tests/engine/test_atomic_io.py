import os

import pytest
from mmengine.fileio import get_file_backend

import vitspec  # noqa: F401  registers the atomic local backend
from vitspec.engine.atomic_io import AtomicLocalBackend, atomic_write_bytes


def test_mmengine_local_backend_is_atomic():
    assert isinstance(get_file_backend('/tmp/x.pth'), AtomicLocalBackend)


def test_crash_mid_write_keeps_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / 'iter_4.pth'
    atomic_write_bytes(b'old complete checkpoint', target)

    def crash(fd):
        raise KeyboardInterrupt('killed while writing')
    monkeypatch.setattr(os, 'fsync', crash)
    with pytest.raises(KeyboardInterrupt):
        get_file_backend(str(target)).put(b'new half', str(target))
    assert target.read_bytes() == b'old complete checkpoint'
    assert [p.name for p in tmp_path.iterdir()] == ['iter_4.pth']


def test_put_text_and_new_directories(tmp_path):
    backend = get_file_backend(str(tmp_path))
    backend.put_text('iter_8.pth', str(tmp_path / 'deep' / 'last_checkpoint'))
    assert (tmp_path / 'deep' / 'last_checkpoint').read_text() == 'iter_8.pth'
