import os

import pytest
import torch

from vitspec.fileio.legacy_pickle import legacy_checkpoint_globals


class RunsCode:
    def __reduce__(self):
        return (os.system, ('true',))


@pytest.mark.parametrize('protocol', [2, 4, 5])
def test_globals_of_a_legacy_checkpoint_are_listed_without_unpickling(tmp_path, protocol):
    path = tmp_path / 'old.pth'
    obj = {'w': torch.ones(2), 'x': RunsCode()}
    torch.save(obj, path, pickle_protocol=protocol, _use_new_zipfile_serialization=False)
    assert legacy_checkpoint_globals(str(path)) == [
        'collections.OrderedDict',
        'posix.system',
        'torch.FloatStorage',
        'torch._utils._rebuild_tensor_v2',
    ]


def test_other_files_are_not_legacy_checkpoints(tmp_path):
    torch.save({'w': torch.ones(2)}, tmp_path / 'zip.pth')
    (tmp_path / 'text.pth').write_text('hello')
    assert legacy_checkpoint_globals(str(tmp_path / 'zip.pth')) is None
    assert legacy_checkpoint_globals(str(tmp_path / 'text.pth')) is None
