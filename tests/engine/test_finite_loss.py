import math

import pytest
import torch
from mmengine.model import BaseModel
from mmengine.runner import Runner
from torch.utils.data import Dataset

import vitspec  # noqa: F401  registers FiniteLossOptimWrapper
from tools.launch import guard_nonfinite_loss


class NanAtThirdStep(BaseModel):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(2))
        self.calls = 0

    def forward(self, inputs, mode='tensor'):
        self.calls += 1
        loss = (self.w * inputs).sum() ** 2
        if self.calls == 3:
            loss = loss * math.nan
        return dict(loss=loss)


class Ones(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return dict(inputs=torch.ones(2))


def run(tmp_path, **wrapper):
    from mmengine.config import Config
    cfg = Config(dict(optim_wrapper=dict(type='OptimWrapper', **wrapper)))
    guard_nonfinite_loss(cfg)
    runner = Runner(
        model=NanAtThirdStep(), work_dir=str(tmp_path),
        train_dataloader=dict(dataset=Ones(), batch_size=1, collate_fn=dict(type='default_collate'),
                              sampler=dict(type='InfiniteSampler', shuffle=False)),
        optim_wrapper=cfg.optim_wrapper, train_cfg=dict(by_epoch=False, max_iters=5),
        default_hooks=dict(checkpoint=dict(type='CheckpointHook', interval=1, by_epoch=False)))
    return runner


def test_nan_loss_stops_naming_the_iteration_and_no_nan_checkpoint(tmp_path):
    runner = run(tmp_path, optimizer=dict(type='SGD', lr=0.01))
    with pytest.raises(FloatingPointError, match='non-finite loss .* at iteration 3'):
        runner.train()
    assert torch.isfinite(runner.model.w).all()
    saved = sorted(p.name for p in tmp_path.glob('iter_*.pth'))
    assert saved == ['iter_1.pth', 'iter_2.pth']


def test_skip_policy_drops_only_the_bad_step(tmp_path):
    runner = run(tmp_path, optimizer=dict(type='SGD', lr=0.01), nonfinite='skip')
    runner.train()
    assert torch.isfinite(runner.model.w).all()
    assert (tmp_path / 'iter_5.pth').is_file()


def test_unknown_policy():
    from vitspec.engine import FiniteLossOptimWrapper
    with pytest.raises(ValueError, match='nonfinite must be one of'):
        FiniteLossOptimWrapper(torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1),
                               nonfinite='ignore')
