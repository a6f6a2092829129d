"""No checkpoint holds NaN or inf: with nonfinite='skip', a skipped step's forward has already
updated the buffers (running statistics), and such weights were saved and resumed from."""

import math

import pytest
import torch
from mmengine.model import BaseModel
from mmengine.runner import Runner

import vitspec.engine  # noqa: F401  registers SafeIOHook and the wrapper
from tests.utils import ones_loader
from vitspec.engine.checkpointing.finite_weights import check_finite_weights


class RunningMeanOfLoss(BaseModel):
    """A buffer updated by every forward, as BatchNorm's running mean is; NaN loss at 3."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(2))
        self.register_buffer('running', torch.zeros(1))
        self.calls = 0

    def forward(self, inputs, mode='tensor'):
        self.calls += 1
        loss = (self.w * inputs).sum() ** 2 * (math.nan if self.calls == 3 else 1)
        self.running.mul_(0.9).add_(0.1 * loss.detach())
        return dict(loss=loss)


def test_nan_buffer_is_not_saved_and_the_run_stops(tmp_path):
    runner = Runner(
        model=RunningMeanOfLoss(),
        work_dir=str(tmp_path),
        train_dataloader=ones_loader(8),
        optim_wrapper=dict(
            type='FiniteLossOptimWrapper', nonfinite='skip', optimizer=dict(type='SGD', lr=0.01)
        ),
        train_cfg=dict(by_epoch=False, max_iters=6),
        default_hooks=dict(checkpoint=dict(type='CheckpointHook', interval=1, by_epoch=False)),
        custom_hooks=[dict(type='SafeIOHook')],
    )
    with pytest.raises(
        FloatingPointError, match=r'iteration 3 hold NaN or inf in 1 of 2 .*running'
    ):
        runner.train()
    assert sorted(p.name for p in tmp_path.glob('iter_*.pth')) == ['iter_1.pth', 'iter_2.pth']


def test_finite_and_integer_entries_pass_and_the_bad_ones_are_named():
    good = dict(w=torch.ones(2), steps=torch.tensor([3]), half=torch.ones(1, dtype=torch.float16))
    check_finite_weights(dict(state_dict=good, meta=dict(iter=6)))
    bad = {f'b{i}': torch.tensor([math.inf]) for i in range(7)}
    with pytest.raises(
        FloatingPointError, match=r'iteration 6 .* 7 of 10 .*b0, b1, b2, b3, b4 and 2 m'
    ):
        check_finite_weights(dict(state_dict={**good, **bad}, meta=dict(iter=6)))
