"""Resuming a work dir: nothing to resume stops, naming the folder and what it holds (mmengine
trains from iteration 0: 'Auto resumed from the latest checkpoint None'); a copied work dir
resumes from its own files, not the original folder's that its last_checkpoint names."""

import shutil

import pytest
import torch
from mmengine.config import Config
from mmengine.model import BaseModel

import vitspec.engine  # noqa: F401  registers SafeIOHook
from tests.utils import ROOT, ones_loader
from vitspec.engine import CheckedRunner
from vitspec.engine.checkpointing.resume import checkpoint_to_resume
from vitspec.errors import CheckpointError
from vitspec.runs.runner import build_runner


class Linear(BaseModel):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(2))

    def forward(self, inputs, mode='tensor'):
        return dict(loss=((self.w * inputs).sum() - 1) ** 2)


def runner(work_dir, max_iters, **kwargs):
    return CheckedRunner(
        model=Linear(),
        work_dir=str(work_dir),
        train_dataloader=ones_loader(4),
        optim_wrapper=dict(optimizer=dict(type='SGD', lr=0.1)),
        train_cfg=dict(by_epoch=False, max_iters=max_iters),
        default_hooks=dict(checkpoint=dict(type='CheckpointHook', interval=2, by_epoch=False)),
        custom_hooks=[dict(type='SafeIOHook')],
        experiment_name='-'.join(work_dir.parts[-2:]),
        **kwargs,
    )


@pytest.fixture(scope='module')
def trained(tmp_path_factory):
    work = tmp_path_factory.mktemp('work_dirs') / 'fcn_demo'
    runner(work, max_iters=2).train()
    return work


def test_resume_with_nothing_to_resume_stops_before_training(trained):
    mistyped = trained.parent / 'fcn_dmeo'
    run = runner(mistyped, max_iters=2, resume=True)
    with pytest.raises(CheckpointError) as error:
        run.train()
    message = str(error.value)
    assert f'--resume: nothing to resume in {mistyped}: it has no last_checkpoint file' in message
    assert 'it is empty, besides what this run wrote' in message
    assert f'Folders with a checkpoint to resume: {trained} (--work-dir)' in message
    assert 'leave out --resume' in message
    assert not (mistyped / 'iter_2.pth').exists()


def test_checkpoints_without_a_pointer_are_named(tmp_path):
    (tmp_path / 'iter_4.pth').write_bytes(b'x')
    (tmp_path / 'notes.txt').write_text('x')
    with pytest.raises(
        CheckpointError, match=rf'holds checkpoints \(iter_4.pth\).*--resume {tmp_path}/iter_4.pth'
    ):
        checkpoint_to_resume(str(tmp_path))
    (tmp_path / 'iter_4.pth').unlink()
    with pytest.raises(CheckpointError, match=r'no checkpoint \(it holds notes.txt, besides'):
        checkpoint_to_resume(str(tmp_path))


def test_a_copied_work_dir_resumes_from_its_own_checkpoint(trained, tmp_path):
    copy = tmp_path / 'copy'
    shutil.copytree(trained, copy)
    assert str(trained) in (copy / 'last_checkpoint').read_text()
    own = torch.load(copy / 'iter_2.pth', weights_only=False)
    own['state_dict']['w'] = torch.tensor([7.0, 7.0])
    torch.save(own, copy / 'iter_2.pth')
    assert checkpoint_to_resume(str(copy)) == str(copy / 'iter_2.pth')
    resumed = runner(copy, max_iters=2, resume=True)
    resumed.train()  # resumes at iteration 2 of 2: no step after the load
    assert torch.equal(resumed.model.w.detach(), torch.tensor([7.0, 7.0]))


def test_a_moved_work_dir_resumes_and_a_lost_checkpoint_is_named(trained, tmp_path):
    moved = tmp_path / 'moved'
    shutil.copytree(trained, moved)
    (moved / 'last_checkpoint').write_text(str(tmp_path / 'gone' / 'iter_2.pth'))
    assert checkpoint_to_resume(str(moved)) == str(moved / 'iter_2.pth')
    (moved / 'iter_2.pth').unlink()
    with pytest.raises(CheckpointError, match='gone/iter_2.pth, which does not exist, and'):
        checkpoint_to_resume(str(moved))


def test_the_pointer_of_an_intact_work_dir_is_taken_as_written(trained):
    assert checkpoint_to_resume(str(trained)) == str(trained / 'iter_2.pth')


def test_shipped_configs_resume_through_it(trained):
    """The runtime configs' runner (tools/train.py --resume, mmseg's and mmdet's train scripts)."""
    cfg = Config.fromfile(
        ROOT / 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
    )
    cfg.update(work_dir=str(trained.parent / 'fcn_demo_typo'), launcher='none', resume=True)
    with pytest.raises(CheckpointError, match=f'nothing to resume in .*{trained}'):
        build_runner(cfg).load_or_resume()  # what runner.train() calls once its loops are built
