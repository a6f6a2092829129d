import math

import pytest
import torch
from mmengine.config import Config
from mmengine.model import BaseModel
from mmengine.runner import Runner

import vitspec  # noqa: F401  registers FiniteLossOptimWrapper
from tests.utils import ones_loader
from vitspec.engine import FiniteLossAmpOptimWrapper
from vitspec.runs.runner import enable_amp


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


def run(tmp_path, kind='FiniteLossOptimWrapper', **wrapper):
    runner = Runner(
        model=NanAtThirdStep(),
        work_dir=str(tmp_path),
        train_dataloader=ones_loader(8),
        optim_wrapper=dict(type=kind, **wrapper),
        train_cfg=dict(by_epoch=False, max_iters=5),
        default_hooks=dict(checkpoint=dict(type='CheckpointHook', interval=1, by_epoch=False)),
    )
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
        FiniteLossOptimWrapper(
            torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1), nonfinite='ignore'
        )


# a CUDA grad scaler built on a machine without CUDA disables itself, with this warning
CUDA_SCALER_OFF = 'ignore:torch.cuda.amp.GradScaler is enabled, but CUDA is not available'


@pytest.mark.filterwarnings(CUDA_SCALER_OFF)
def test_amp_device_is_a_parameter_by_default_where_the_runner_puts_the_model(monkeypatch):
    """One code path for CUDA and CPU: the device names the grad scaler's device and
    torch.autocast's; mmengine's get_device() (cuda on a GPU machine) when none is given."""
    params = [torch.nn.Parameter(torch.ones(1))]
    for device, kind in (('cuda', 'cuda'), ('cuda:1', 'cuda'), ('cpu', 'cpu')):
        wrapper = FiniteLossAmpOptimWrapper(optimizer=torch.optim.SGD(params), device=device)
        assert wrapper.device == kind and wrapper.loss_scaler._device == kind
    monkeypatch.setattr('vitspec.engine.optim.finite_loss_amp.get_device', lambda: 'cuda')
    assert FiniteLossAmpOptimWrapper(optimizer=torch.optim.SGD(params)).device == 'cuda'
    sharded = FiniteLossAmpOptimWrapper(
        optimizer=torch.optim.SGD(params), use_fsdp=True, device='cpu'
    ).loss_scaler
    assert type(sharded).__name__ == 'ShardedGradScaler' and sharded._device == 'cpu'


@pytest.mark.filterwarnings(CUDA_SCALER_OFF)
def test_amp_on_cuda_autocasts_on_cuda(monkeypatch):
    """What a GPU run enters, seen here through a stand-in for torch.autocast."""
    entered, autocast = [], torch.autocast

    def recording(device_type, dtype):
        entered.append((device_type, dtype))
        return autocast('cpu', dtype)

    monkeypatch.setattr(torch, 'autocast', recording)
    wrapper = FiniteLossAmpOptimWrapper(
        optimizer=torch.optim.SGD([torch.nn.Parameter(torch.ones(1))]),
        dtype='bfloat16',
        device='cuda',
    )
    with wrapper.optim_context(torch.nn.Linear(1, 1)):
        pass
    assert entered == [('cuda', torch.bfloat16)]


DEVICES = ['cpu'] + (['cuda'] if torch.cuda.is_available() else [])


@pytest.mark.parametrize('device', DEVICES)
def test_amp_overflowing_gradients_are_skipped_not_failed(device):
    """A finite loss whose scaled gradients overflow: the scaler skips the step and lowers its
    scale, as with mmengine's AmpOptimWrapper; only a non-finite loss is a failure."""
    w = torch.nn.Parameter(torch.ones(2, device=device))
    wrapper = FiniteLossAmpOptimWrapper(
        optimizer=torch.optim.SGD([w], lr=0.1), loss_scale=dict(init_scale=2.0**16), device=device
    )
    loss = (w * 1e36).sum()  # finite in float32; times the scale it is inf
    scale = wrapper.loss_scaler.get_scale()
    wrapper.update_params(loss)
    assert torch.equal(w.detach(), torch.ones(2, device=device))
    assert wrapper.loss_scaler.get_scale() < scale
    with pytest.raises(FloatingPointError, match='non-finite loss'):
        wrapper.update_params((w * float('nan')).sum())


def test_amp_switch_keeps_the_guard_and_refuses_unknown_wrappers():
    cfg = Config(dict(optim_wrapper=dict(type='FiniteLossOptimWrapper')))
    assert enable_amp(cfg).optim_wrapper == dict(
        type='FiniteLossAmpOptimWrapper', loss_scale='dynamic'
    )
    amp = Config(dict(optim_wrapper=dict(type='FiniteLossAmpOptimWrapper', loss_scale=512.0)))
    assert enable_amp(amp).optim_wrapper.loss_scale == 512.0
    with pytest.raises(ValueError, match="'OptimWrapper' has no mixed-precision form"):
        enable_amp(Config(dict(optim_wrapper=dict(type='OptimWrapper'))))


@pytest.mark.parametrize('dtype, scaled', [(None, True), ('float16', True), ('bfloat16', False)])
def test_amp_wrapper_runs_on_cpu_in_the_autocast_dtype(tmp_path, dtype, scaled):
    """mmengine's AmpOptimWrapper refuses a machine without an accelerator; ours autocasts on
    the CPU (float16 by default, as on CUDA) and trains, the guard kept: the lines a GPU run
    runs, with device 'cpu'."""
    loss_scale = 'dynamic' if scaled else dict(enabled=False)
    wrapper = FiniteLossAmpOptimWrapper(
        optimizer=torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1),
        loss_scale=loss_scale,
        dtype=dtype,
    )
    assert wrapper.loss_scaler.is_enabled() is scaled
    device = wrapper.device  # cuda on a GPU machine
    linear = torch.nn.Linear(3, 3, device=device)
    with wrapper.optim_context(linear):
        out = linear(torch.ones(1, 3, device=device))
    assert out.dtype == getattr(torch, dtype or 'float16')
    runner = run(
        tmp_path,
        kind='FiniteLossAmpOptimWrapper',
        optimizer=dict(type='SGD', lr=0.01),
        loss_scale=loss_scale,
        dtype=dtype,
    )
    with pytest.raises(FloatingPointError, match='non-finite loss .* at iteration 3'):
        runner.train()
    assert torch.isfinite(runner.model.w).all()
    assert not torch.equal(runner.model.w.detach(), torch.ones(2))  # steps 1 and 2 trained


def test_amp_switch_dtypes():
    fp32 = dict(optim_wrapper=dict(type='FiniteLossOptimWrapper'))
    bf16 = enable_amp(Config(fp32), 'bf16').optim_wrapper
    assert (bf16.dtype, bf16.loss_scale) == ('bfloat16', dict(enabled=False))  # no scaler
    fp16 = enable_amp(Config(fp32), 'fp16').optim_wrapper
    assert (fp16.dtype, fp16.loss_scale) == ('float16', 'dynamic')
    bf16_recipe = Config(dict(optim_wrapper=dict(bf16, type='FiniteLossAmpOptimWrapper')))
    assert enable_amp(bf16_recipe, 'fp16').optim_wrapper.loss_scale == 'dynamic'
    with pytest.raises(ValueError, match="dtype must be one of .*got 'fp8'"):
        enable_amp(Config(fp32), 'fp8')
