"""SafeIOHook: the safe loader is in place before the Runner initialises weights or resumes,
checkpoints are written atomically during the run, and mmengine is as before afterwards."""

import pickle
from pathlib import Path

import pytest
import torch
from mmengine.fileio import get_file_backend
from mmengine.hooks import Hook
from mmengine.model import BaseModel
from mmengine.runner import CheckpointLoader, Runner, checkpoint

import vitspec.engine  # noqa: F401  registers SafeIOHook
from tests.utils import ones_loader
from vitspec.fileio import AtomicLocalBackend, load_local_checkpoint


class Linear(BaseModel):
    def __init__(self, init_cfg=None):
        super().__init__(init_cfg=init_cfg)
        self.w = torch.nn.Parameter(torch.ones(2))

    def forward(self, inputs, mode='tensor'):
        return dict(loss=((self.w * inputs).sum() - 1) ** 2)


class RecordBackend(Hook):
    def before_train(self, runner):
        runner.seen_backend = type(get_file_backend(runner.work_dir))
        runner.seen_loader = CheckpointLoader._get_checkpoint_loader(runner.work_dir)


def runner(work_dir, max_iters, **kwargs):
    return Runner(
        model=Linear(init_cfg=kwargs.pop('init_cfg', None)),
        work_dir=str(work_dir),
        train_dataloader=ones_loader(4),
        optim_wrapper=dict(optimizer=dict(type='SGD', lr=0.01)),
        train_cfg=dict(by_epoch=False, max_iters=max_iters),
        default_hooks=dict(checkpoint=dict(type='CheckpointHook', interval=2, by_epoch=False)),
        custom_hooks=[dict(type='SafeIOHook'), RecordBackend()],
        experiment_name='-'.join(Path(work_dir).parts[-2:]),
        **kwargs,
    )


def mmengine_state():
    return (CheckpointLoader._get_checkpoint_loader('/x.pth'), type(get_file_backend('/x.pth')))


def test_run_writes_atomically_and_leaves_mmengine_as_it_was(tmp_path):
    before = mmengine_state()
    first = runner(tmp_path, max_iters=2)
    first.train()
    assert first.seen_backend is AtomicLocalBackend
    assert first.seen_loader is load_local_checkpoint
    assert (tmp_path / 'iter_2.pth').is_file() and (tmp_path / 'last_checkpoint').is_file()
    assert mmengine_state() == before


def test_pretrained_init_and_resume_go_through_the_safe_loader(tmp_path):
    runner(tmp_path / 'a', max_iters=2).train()
    ckpt = str(tmp_path / 'a' / 'iter_2.pth')
    with pytest.raises(pickle.UnpicklingError):  # HistoryBuffer: torch's default refuses it
        checkpoint.load_from_local(ckpt, map_location='cpu')
    resumed = runner(
        tmp_path / 'b',
        max_iters=4,
        load_from=ckpt,
        resume=True,
        init_cfg=dict(type='Pretrained', checkpoint=ckpt),
    )
    resumed.train()
    assert resumed.iter == 4 and resumed.seen_loader is load_local_checkpoint


def test_a_training_run_removes_the_temporary_files_of_a_killed_save(tmp_path):
    tmp_path.mkdir(exist_ok=True)
    stale = tmp_path / '.iter_2.pth.0a1b2c3d.tmp'  # what kill -9 during a save leaves
    stale.write_bytes(b'half a checkpoint')
    runner(tmp_path, max_iters=1).train()
    assert not stale.exists()
    assert (tmp_path / 'iter_1.pth').is_file()


def test_a_test_run_leaves_the_folder_alone(tmp_path):
    """tools/test.py may run beside the training that owns the work dir and is saving."""
    writing = tmp_path / '.iter_2.pth.0a1b2c3d.tmp'
    writing.write_bytes(b'being written')
    run = runner(tmp_path, max_iters=1)
    run.call_hook('before_run')
    run.call_hook('after_run')
    assert writing.exists()
