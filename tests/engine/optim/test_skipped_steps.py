"""Steps that are skipped, by the grad scaler or by nonfinite='skip', are capped: a run whose
weights have stopped changing stops instead of ending with exit 0. Non-finite gradients of a
finite loss never reach the weights."""

import math

import pytest
import torch
from mmengine.model import BaseModel
from mmengine.runner import Runner

import vitspec.engine  # noqa: F401  registers the wrappers and SafeIOHook
from tests.utils import ones_loader
from vitspec.engine import FiniteLossAmpOptimWrapper
from vitspec.engine.optim.skipped_steps import SkippedSteps


class NanGradients(BaseModel):
    """A finite loss whose gradient is NaN at the iterations listed (1-based), or always."""

    def __init__(self, bad_iterations=None):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(2))
        self.calls = 0
        self.bad = bad_iterations
        self.w.register_hook(self._poison)

    def _poison(self, grad):
        return grad * math.nan if self.bad is None or self.calls in self.bad else grad

    def forward(self, inputs, mode='tensor'):
        self.calls += 1
        return dict(loss=((self.w * inputs).sum() - 1) ** 2)


def runner(tmp_path, model, max_iters, **wrapper):
    wrapper.setdefault('type', 'FiniteLossOptimWrapper')
    return Runner(
        model=model,
        work_dir=str(tmp_path),
        train_dataloader=ones_loader(8),
        optim_wrapper=dict(optimizer=dict(type='SGD', lr=0.01), **wrapper),
        train_cfg=dict(by_epoch=False, max_iters=max_iters),
        default_hooks=dict(checkpoint=dict(type='CheckpointHook', interval=1, by_epoch=False)),
        custom_hooks=[dict(type='SafeIOHook')],
        experiment_name=tmp_path.name,
    )


FP16 = dict(type='FiniteLossAmpOptimWrapper', dtype='float16', loss_scale='dynamic')


def test_fp16_scaler_skipping_every_step_stops_at_the_cap(tmp_path):
    run = runner(tmp_path, NanGradients(), max_iters=30, **FP16)
    with pytest.raises(FloatingPointError) as error:
        run.train()
    message = str(error.value)
    assert '20 optimizer steps in a row were skipped (iterations 1-20)' in message
    assert 'non-finite float16 gradients (loss scale now' in message
    assert 'optim_wrapper.max_skipped_steps (20' in message
    assert torch.equal(run.model.w.detach(), torch.ones(2))


def test_a_short_run_that_never_steps_stops_at_its_end(tmp_path):
    run = runner(tmp_path, NanGradients(), max_iters=6, **FP16)
    with pytest.raises(FloatingPointError, match=r'all 6 optimizer steps of this run were skip'):
        run.train()


def test_the_cap_is_configurable_and_none_lifts_it(tmp_path):
    run = runner(tmp_path / 'three', NanGradients(), max_iters=30, max_skipped_steps=3, **FP16)
    with pytest.raises(FloatingPointError, match=r'3 optimizer steps in a row .*iterations 1-3\)'):
        run.train()
    runner(tmp_path / 'none', NanGradients(), max_iters=25, max_skipped_steps=None, **FP16).train()
    with pytest.raises(ValueError, match='max_skipped_steps must be a positive int or None'):
        SkippedSteps(0)


def test_a_step_resets_the_count(tmp_path):
    """Skips at iterations 1-3 and 5-7 with a cap of 4: never 4 in a row."""
    model = NanGradients(bad_iterations={1, 2, 3, 5, 6, 7})
    run = runner(tmp_path, model, max_iters=8, max_skipped_steps=4, **FP16)
    run.train()
    assert not torch.equal(run.model.w.detach(), torch.ones(2))


def test_nan_gradients_of_a_finite_loss_stop_before_the_weights_change(tmp_path):
    run = runner(tmp_path, NanGradients(bad_iterations={2}), max_iters=6)
    with pytest.raises(FloatingPointError, match='non-finite gradients of a finite loss at itera'):
        run.train()
    assert torch.isfinite(run.model.w).all()
    assert sorted(p.name for p in tmp_path.glob('iter_*.pth')) == ['iter_1.pth']


def test_skip_policy_skips_nan_gradients_and_saves_finite_weights(tmp_path):
    run = runner(tmp_path, NanGradients(bad_iterations={1}), max_iters=6, nonfinite='skip')
    run.train()
    for iteration in range(1, 7):
        weights = torch.load(tmp_path / f'iter_{iteration}.pth', weights_only=False)
        assert torch.isfinite(weights['state_dict']['w']).all(), iteration


def test_skip_policy_has_the_cap_too(tmp_path):
    run = runner(
        tmp_path,
        NanGradients(bad_iterations=set(range(3, 99))),
        max_iters=30,
        nonfinite='skip',
        max_skipped_steps=5,
    )
    with pytest.raises(FloatingPointError, match=r'5 optimizer steps in a row .*iterations 3-7\)'):
        run.train()


class NanGradient(torch.autograd.Function):
    """0 forward, NaN backward."""

    @staticmethod
    def forward(ctx, x):
        return x.sum() * 0

    @staticmethod
    def backward(ctx, grad):
        return torch.full((2,), math.nan)


def test_bf16_without_a_scaler_treats_nan_gradients_as_fp32_does():
    w = torch.nn.Parameter(torch.ones(2))
    wrapper = FiniteLossAmpOptimWrapper(
        optimizer=torch.optim.SGD([w], lr=0.1),
        dtype='bfloat16',
        loss_scale=dict(enabled=False),
    )
    with pytest.raises(FloatingPointError, match='non-finite gradients of a finite loss'):
        wrapper.update_params(w.sum() + NanGradient.apply(w))
    assert torch.equal(w.detach(), torch.ones(2))
