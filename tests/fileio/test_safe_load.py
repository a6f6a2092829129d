import os

import numpy as np
import pytest
import torch
from mmengine.logging import HistoryBuffer
from mmengine.runner import CheckpointLoader

from vitspec.errors import CheckpointError
from vitspec.fileio import install_safe_io, safe_torch_load, using_safe_io


@pytest.fixture
def safe_io():
    restore = install_safe_io()
    yield
    restore()


def mmengine_like_checkpoint():
    buf = HistoryBuffer()
    buf.update(1.5)
    buf.update(2.5)
    return dict(
        meta=dict(iter=4, seed=np.int64(3)),
        state_dict={'w': torch.ones(2)},
        message_hub=dict(log_scalars={'train/loss': buf}, runtime_info={'eta': np.float64(0.0)}),
        arrays=[np.arange(3, dtype=np.float32), np.zeros((2, 2), dtype=np.int64)],
    )


def test_loads_what_mmengine_stores(tmp_path, safe_io):
    path = tmp_path / 'iter_4.pth'
    torch.save(mmengine_like_checkpoint(), path)
    assert torch.serialization.get_unsafe_globals_in_checkpoint(str(path))  # needs the list
    ck = CheckpointLoader.load_checkpoint(str(path), map_location='cpu')  # mmengine's entry
    assert ck['message_hub']['log_scalars']['train/loss'].mean() == 2.0
    np.testing.assert_array_equal(ck['arrays'][0], np.arange(3, dtype=np.float32))
    assert ck['meta']['seed'] == 3


class RunsCode:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f'touch {self.marker}',))


def test_refuses_pickle_that_would_run_code(tmp_path):
    marker = tmp_path / 'was_executed'
    path = tmp_path / 'evil.pth'
    torch.save({'state_dict': {'w': torch.ones(1)}, 'x': RunsCode(marker)}, path)
    with pytest.raises(CheckpointError, match=r'not allowed: posix\.system'):
        safe_torch_load(str(path))
    assert not marker.exists()


def test_refuses_getattr_outside_history_buffer(tmp_path):
    class Sneaky:
        def __reduce__(self):
            return (getattr, (HistoryBuffer, '__init__'))

    path = tmp_path / 'sneaky.pth'
    torch.save({'x': Sneaky()}, path)
    with pytest.raises(CheckpointError, match=r"refusing getattr\(.*'__init__'\)"):
        safe_torch_load(str(path))


@pytest.mark.parametrize('damage', ['truncate', 'not_a_checkpoint'])
def test_damaged_file_names_the_file(tmp_path, damage):
    path = tmp_path / 'bad.pth'
    torch.save({'w': torch.randn(1000)}, path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if damage == 'truncate' else b'hello world')
    with pytest.raises(CheckpointError, match='bad.pth is not a readable PyTorch checkpoint'):
        safe_torch_load(str(path))


def test_missing_file():
    with pytest.raises(FileNotFoundError, match='nope.pth'):
        safe_torch_load('/nonexistent/nope.pth')


def test_using_safe_io_loads_safely_inside_the_block_only(tmp_path):
    path = tmp_path / 'iter_4.pth'
    torch.save(mmengine_like_checkpoint(), path)
    outside = CheckpointLoader._get_checkpoint_loader(str(path))
    with using_safe_io():
        assert CheckpointLoader.load_checkpoint(str(path))['meta']['iter'] == 4
    assert CheckpointLoader._get_checkpoint_loader(str(path)) is outside


LEGACY = dict(_use_new_zipfile_serialization=False)


@pytest.mark.parametrize('protocol', [2, 4])
def test_legacy_format_pickle_that_would_run_code_is_refused_for_safety(tmp_path, protocol):
    """torch's non-zip format: the file is well formed, so the message is about safety and how
    to trust one file, not about corruption or weights_only=False."""
    marker = tmp_path / 'was_executed'
    path = tmp_path / 'old.pth'
    torch.save(
        {'w': torch.ones(1), 'x': RunsCode(marker)}, path, pickle_protocol=protocol, **LEGACY
    )
    with pytest.raises(CheckpointError) as info:
        safe_torch_load(str(path))
    message = str(info.value)
    assert "(torch's legacy non-zip format) needs unpickling" in message
    assert 'not allowed: posix.system. Refusing to load it for safety' in message
    assert f'--trust-pickle, or VITSPEC_TRUST_PICKLE={path}' in message
    assert 'corrupt' not in message and 'weights_only' not in message
    assert not marker.exists()


def test_legacy_format_checkpoints_load_and_damaged_ones_are_unreadable(tmp_path):
    path = tmp_path / 'old.pth'
    torch.save(mmengine_like_checkpoint(), path, **LEGACY)
    assert safe_torch_load(str(path))['meta']['iter'] == 4
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])
    with pytest.raises(CheckpointError, match='old.pth is not a readable PyTorch checkpoint'):
        safe_torch_load(str(path))
