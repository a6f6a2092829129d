"""A folder where a checkpoint file belongs is called a folder, not a missing file; a folder
given to --resume is taken for a work dir, and the message says how to resume from one."""

import runpy

import pytest
from mmengine.config import Config

from tests.utils import ROOT
from vitspec.errors import CheckpointError
from vitspec.fileio import safe_torch_load, using_safe_io
from vitspec.runs.runner import build_runner

CONFIG = ROOT / 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'


def tool(name):
    return runpy.run_path(str(ROOT / 'tools' / name), run_name='tool')['main']


def tiny_runner(work_dir, **runner_args):
    cfg = Config.fromfile(CONFIG)
    cfg.model.backbone.update(num_layers=1, embed_dims=16, num_heads=2, out_indices=[0])
    cfg.model.decode_head.update(in_channels=16, channels=8, norm_cfg=dict(type='BN'))
    cfg.update(work_dir=str(work_dir), launcher='none', **runner_args)
    return build_runner(cfg)


@pytest.fixture
def folder(tmp_path):
    path = tmp_path / 'work_dirs' / 'run'
    path.mkdir(parents=True)
    (path / 'iter_1.pth').write_bytes(b'')
    return path


def test_safe_loader_calls_it_a_folder(folder):
    with pytest.raises(CheckpointError, match=f'^{folder} is a folder, not a checkpoint file$'):
        safe_torch_load(str(folder))


def test_load_from_a_folder(folder, tmp_path):
    runner = tiny_runner(tmp_path / 'work', load_from=str(folder))
    with using_safe_io(), pytest.raises(CheckpointError) as info:
        runner.load_or_resume()  # what runner.train() calls once its loops are built
    assert (
        str(info.value)
        == f'{folder} is a folder, not a checkpoint file: name one of its .pth files'
    )


def test_resume_from_a_folder_says_how_to_resume_from_a_work_dir(folder, tmp_path):
    runner = tiny_runner(tmp_path / 'work', load_from=str(folder), resume=True)
    with pytest.raises(CheckpointError) as info:
        runner.load_or_resume()
    message = str(info.value)
    assert message.startswith(f'{folder} is a folder, not a checkpoint file. ')
    assert f'give --resume without a path (tools/train.py CONFIG --resume --work-dir {folder})' in (
        message
    )


def test_test_tool_calls_it_a_folder(folder, tmp_path):
    with pytest.raises(CheckpointError, match=f'^{folder} is a folder, not a checkpoint file'):
        tool('test.py')([str(CONFIG), str(folder), '--work-dir', str(tmp_path / 'test')])


def test_convert_tool_calls_it_a_folder(folder, tmp_path, capsys):
    code = tool('convert_checkpoint.py')(
        [str(folder), str(tmp_path / 'out.pth'), '--format', 'timm']
    )
    assert code == 1
    assert f'error: {folder} is a folder, not a checkpoint file' in capsys.readouterr().err
    assert not (tmp_path / 'out.pth').exists()
