import errno
import os
import subprocess
import sys

import pytest
import torch
from mmengine.fileio import get_file_backend

from vitspec.fileio import (
    AtomicLocalBackend,
    atomic_torch_save,
    atomic_write_bytes,
    install_safe_io,
    remove_stale_temporaries,
)


@pytest.fixture
def safe_io():
    restore = install_safe_io()
    yield
    restore()


def test_mmengine_local_backend_is_atomic(safe_io):
    assert isinstance(get_file_backend('/tmp/x.pth'), AtomicLocalBackend)


def test_crash_mid_write_keeps_the_old_file_and_no_temporary(tmp_path, monkeypatch, safe_io):
    target = tmp_path / 'iter_4.pth'
    atomic_write_bytes(b'old complete checkpoint', target)

    def crash(fd):
        raise KeyboardInterrupt('killed while writing')

    monkeypatch.setattr(os, 'fsync', crash)
    with pytest.raises(KeyboardInterrupt):
        get_file_backend(str(target)).put(b'new half', str(target))
    assert target.read_bytes() == b'old complete checkpoint'
    assert [p.name for p in tmp_path.iterdir()] == ['iter_4.pth']


def test_put_text_and_new_directories(tmp_path, safe_io):
    backend = get_file_backend(str(tmp_path))
    backend.put_text('iter_8.pth', str(tmp_path / 'deep' / 'last_checkpoint'))
    assert (tmp_path / 'deep' / 'last_checkpoint').read_text() == 'iter_8.pth'


def test_atomic_torch_save_keeps_the_old_file_on_a_crash(tmp_path, monkeypatch):
    target = tmp_path / 'converted.pth'
    atomic_torch_save({'w': torch.ones(2)}, target)

    def disk_full(fd):
        raise OSError('disk full')

    monkeypatch.setattr(os, 'fsync', disk_full)
    with pytest.raises(OSError, match='disk full'):
        atomic_torch_save({'w': torch.zeros(2)}, target)
    assert torch.equal(torch.load(target)['w'], torch.ones(2))
    assert [p.name for p in tmp_path.iterdir()] == ['converted.pth']


def test_install_replaces_cached_backends_and_restore_puts_mmengine_back(tmp_path):
    path = str(tmp_path / 'a.txt')
    before = type(get_file_backend(path, enable_singleton=True))
    restore = install_safe_io()
    assert type(get_file_backend(path, enable_singleton=True)) is AtomicLocalBackend
    assert install_safe_io()() is None  # already installed: its restore changes nothing
    assert type(get_file_backend(path, enable_singleton=True)) is AtomicLocalBackend
    restore()
    assert type(get_file_backend(path, enable_singleton=True)) is before
    assert type(get_file_backend(path)) is before


@pytest.mark.parametrize('umask, mode', [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_written_files_follow_the_umask_as_torch_save_does(tmp_path, umask, mode):
    previous = os.umask(umask)
    try:
        atomic_write_bytes(b'checkpoint', tmp_path / 'iter_4.pth')
        atomic_torch_save({'w': torch.ones(1)}, tmp_path / 'converted.pth')
        torch.save({'w': torch.ones(1)}, tmp_path / 'plain.pth')
    finally:
        os.umask(previous)
    for name in ('iter_4.pth', 'converted.pth', 'plain.pth'):
        assert (tmp_path / name).stat().st_mode & 0o777 == mode, name


def test_stale_temporaries_are_removed_and_nothing_else(tmp_path):
    stale = ['.iter_4.pth.0a1b2c3d.tmp', '.last_checkpoint.x_y7z9ab.tmp']  # ours, mkstemp's
    kept = ['iter_4.pth', 'notes.tmp', '.hidden.tmp', '.iter_8.pth.toolongname.tmp']
    for name in stale + kept:
        (tmp_path / name).write_bytes(b'x')
    assert remove_stale_temporaries(tmp_path) == sorted(stale)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept)
    assert remove_stale_temporaries(tmp_path / 'missing') == []


FSIZE_SAVE = """
import resource, sys, torch
from vitspec.fileio import atomic_torch_save
resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
try:
    atomic_torch_save(dict(w=torch.zeros(1 << 19)), sys.argv[1])
except OSError as exc:
    print(exc.errno, exc)
"""


def test_a_save_over_the_file_size_limit_names_the_path_and_what_is_kept(tmp_path):
    """It was `OSError: [Errno 27] File too large` without the path (Python ignores SIGXFSZ);
    the earlier checkpoint is intact and so is the folder."""
    old = tmp_path / 'iter_2.pth'
    atomic_torch_save(dict(w=torch.ones(4)), old)
    target = tmp_path / 'iter_4.pth'
    done = subprocess.run(
        [sys.executable, '-c', FSIZE_SAVE, str(target)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    code, message = done.stdout.strip().split(' ', 1)
    assert int(code) == errno.EFBIG
    assert message.startswith(f'[Errno {errno.EFBIG}] could not write {target} (2.0 MiB): ')
    assert 'the file-size limit is 1048576 bytes: raise the file-size limit (`ulimit -f' in message
    assert f'other files in {tmp_path} (earlier checkpoints) are intact' in message
    assert sorted(p.name for p in tmp_path.iterdir()) == ['iter_2.pth']
    assert torch.equal(torch.load(old)['w'], torch.ones(4))


@pytest.mark.parametrize(('code', 'says'), [(28, 'free space on that disk'), (5, None)])
def test_write_errors_name_the_path(tmp_path, monkeypatch, code, says):
    def fail(fd):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, 'fsync', fail)
    target = tmp_path / 'iter_4.pth'
    with pytest.raises(OSError) as raised:
        atomic_write_bytes(b'x' * 10, target)
    assert raised.value.errno == code
    assert f'could not write {target} (0.0 MiB): {os.strerror(code)}; nothing was' in str(
        raised.value
    )
    if says:  # a full disk: what to do; another error: no advice made up
        assert f'{says}, or write elsewhere (--work-dir)' in str(raised.value)
    else:
        assert 'write elsewhere' not in str(raised.value)
    assert list(tmp_path.iterdir()) == []
