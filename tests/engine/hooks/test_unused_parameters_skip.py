"""UnusedParameterCheckHook with ``nonfinite='skip'``: a NaN loss at the first iteration runs no
backward pass, which the hook took for every parameter being unused (UnusedParameterError, the
run stopped although skipping was asked for); it now judges the first iteration whose step was
taken, and still names a parameter no loss reaches."""

import math

import pytest
import torch
from mmengine.model import BaseModel
from mmengine.runner import Runner

import vitspec  # noqa: F401  registers the hook and FiniteLossOptimWrapper
from tests.utils import ones_loader
from vitspec.errors import UnusedParameterError


class NanFirst(BaseModel):
    """A model with a ``backbone`` whose loss is NaN at the first call; ``unused``: a trainable
    backbone parameter no loss reaches."""

    def __init__(self, unused=False):
        super().__init__()
        self.backbone = torch.nn.Module()
        self.backbone.w = torch.nn.Parameter(torch.ones(2))
        if unused:
            self.backbone.spare = torch.nn.Parameter(torch.ones(2))
        self.calls = 0

    def forward(self, inputs, mode='tensor'):
        self.calls += 1
        loss = (self.backbone.w * inputs).sum() ** 2
        return dict(loss=loss * math.nan if self.calls == 1 else loss)


def runner(tmp_path, model):
    return Runner(
        model=model,
        work_dir=str(tmp_path),
        train_dataloader=ones_loader(8),
        optim_wrapper=dict(
            type='FiniteLossOptimWrapper', optimizer=dict(type='SGD', lr=0.01), nonfinite='skip'
        ),
        train_cfg=dict(by_epoch=False, max_iters=3),
        custom_hooks=[dict(type='UnusedParameterCheckHook')],
        default_hooks=dict(checkpoint=None),
    )


def test_a_skipped_nan_first_step_is_not_taken_for_unused_parameters(tmp_path):
    model = NanFirst()
    runner(tmp_path, model).train()
    assert model.calls == 3
    assert torch.isfinite(model.backbone.w).all() and not torch.equal(
        model.backbone.w.detach(), torch.ones(2)
    )


def test_an_unused_parameter_is_named_at_the_first_step_taken(tmp_path):
    with pytest.raises(UnusedParameterError) as raised:
        runner(tmp_path, NanFirst(unused=True)).train()
    message = str(raised.value)
    assert message.startswith(
        '1 trainable backbone parameters got no gradient up to the first iteration that took an '
        'optimizer step (iteration 2): spare.'
    )
