"""MmcvCudaOpsCheckHook: a run whose device mmcv's compiled ops have no kernels for (CUDA with
CPU-only ops, any device with mmcv-lite) stops before its first iteration; a CPU run goes on, the
real probe of the real library included."""

from types import SimpleNamespace

import pytest
import torch
from mmengine.config import Config
from mmengine.model import BaseModel
from mmengine.registry import HOOKS
from mmengine.runner import Runner

import vitspec  # noqa: F401  registers the hook
from tests.utils import ROOT, ones_loader
from vitspec.errors import MmcvOpsError
from vitspec.mmcv_ops import device_check, installed
from vitspec.mmcv_ops.device_check import MmcvCudaOpsCheckHook


class Counting(BaseModel):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(2))
        self.calls = 0

    def forward(self, inputs, data_samples=None, mode='tensor'):
        self.calls += 1
        return dict(loss=(self.w * inputs).sum() ** 2)


def stand_in(monkeypatch, on_cuda, ops_have_cuda):
    devices = {'cuda', 'cpu'} if on_cuda else {'cpu'}
    monkeypatch.setattr(device_check, 'model_device_types', lambda model: devices)
    monkeypatch.setattr(
        installed, 'mmcv_ops_have_kernels', lambda device: device == 'cpu' or ops_have_cuda
    )


@pytest.mark.parametrize('on_cuda, ops_have_cuda', [(False, False), (True, True), (False, True)])
def test_runs_that_can_use_their_ops_go_on(monkeypatch, on_cuda, ops_have_cuda):
    stand_in(monkeypatch, on_cuda, ops_have_cuda)
    have, asked = installed.mmcv_ops_have_kernels, []
    monkeypatch.setattr(installed, 'mmcv_ops_have_kernels', lambda d: asked.append(d) or have(d))
    MmcvCudaOpsCheckHook().before_run(SimpleNamespace(model=None))
    assert asked == (['cpu', 'cuda'] if on_cuda else ['cpu'])  # each device, each with kernels


def test_cuda_run_with_cpu_only_ops_stops_with_the_fix(monkeypatch):
    stand_in(monkeypatch, on_cuda=True, ops_have_cuda=False)
    fix = r'CPU-only: run tools/install.sh .*VITSPEC_CUDA=1 tools/install.sh --mmcv-ops'
    with pytest.raises(MmcvOpsError, match=fix):
        MmcvCudaOpsCheckHook().before_run(SimpleNamespace(model=None))


def test_mmcv_lite_stops_on_every_device(monkeypatch):
    monkeypatch.setattr(installed, 'ops_kernels', lambda: None)
    assert not installed.mmcv_ops_have_kernels('cpu')
    assert not installed.mmcv_ops_have_kernels('cuda')
    runner = SimpleNamespace(model=torch.nn.Linear(2, 2))
    with pytest.raises(
        MmcvOpsError, match=r'on cpu, but mmcv has no ops \(mmcv-lite\): .*install.sh'
    ):
        MmcvCudaOpsCheckHook().before_run(runner)


def runner_with_hook(model, work_dir):
    return Runner(
        model=model,
        work_dir=str(work_dir),
        train_dataloader=ones_loader(4),
        optim_wrapper=dict(optimizer=dict(type='SGD', lr=0.01)),
        train_cfg=dict(by_epoch=False, max_iters=2),
        custom_hooks=[dict(type='MmcvCudaOpsCheckHook')],
    )


def test_a_cpu_run_checks_its_device_and_trains(monkeypatch, tmp_path):
    """The real probe of the installed library, for the device the model is on (cpu here, cuda
    on a GPU), then training."""
    probed, probe = [], installed.mmcv_ops_have_kernels

    def spy(device):
        probed.append((device, probe(device)))
        return probed[-1][1]

    monkeypatch.setattr(installed, 'mmcv_ops_have_kernels', spy)
    model = Counting()
    runner_with_hook(model, tmp_path).train()
    assert probed == [('cpu', True)] and model.calls == 2


def test_runner_stops_before_the_first_iteration(monkeypatch, tmp_path):
    stand_in(monkeypatch, on_cuda=True, ops_have_cuda=False)
    model = Counting()
    with pytest.raises(MmcvOpsError):
        runner_with_hook(model, tmp_path).train()
    assert model.calls == 0


def test_device_probe_reads_where_the_model_is():
    assert device_check.model_device_types(torch.nn.Linear(2, 2)) == {'cpu'}
    assert device_check.model_device_types(torch.nn.Module()) == set()
    meta = torch.nn.Linear(2, 2, device='meta')
    meta.register_buffer('cpu_buffer', torch.zeros(1))
    assert device_check.model_device_types(meta) == {'cpu', 'meta'}


def test_detection_runs_declare_the_check():
    cfg = Config.fromfile(ROOT / 'configs' / '_base_' / 'runtime_det.py')
    assert dict(type='MmcvCudaOpsCheckHook') in cfg.custom_hooks
    assert isinstance(HOOKS.build(dict(type='MmcvCudaOpsCheckHook')), MmcvCudaOpsCheckHook)
