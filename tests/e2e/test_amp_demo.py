"""Mixed precision end to end on the demo segmentation, on the CPU (torch.autocast('cpu') and
torch's CPU grad scaler): it trains in bf16 and fp16, and a NaN in the loss stops it with the
float32 run's message."""

from pathlib import Path

import pytest
import torch

from tests.shrink_config import shrink
from tests.utils import make_demo_data, run_tool
from vitspec.runs.runner import build_runner, enable_amp

CONFIG = 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
NAN = 'model.decode_head.loss_decode.loss_weight=nan'


@pytest.fixture(scope='module')
def demo_ade(tmp_path_factory) -> Path:
    return make_demo_data(tmp_path_factory.mktemp('demo'), 'ade20k', 4, 2)


def tiny(root, work_dir, amp=None):
    """The demo config at 64x64, width 32, 2 iterations; ``amp``: tools/train.py's --amp."""
    cfg = shrink(CONFIG, str(root), str(work_dir), factor=1 / 2, iters=2)
    return cfg if amp is None else enable_amp(cfg, amp)


def losses_logged(runner):
    return runner.message_hub.get_scalar('train/loss').data[0]


@pytest.mark.parametrize('amp', ['bf16', 'fp16'])
def test_amp_demo_trains_on_cpu(demo_ade, tmp_path, amp):
    runner = build_runner(tiny(demo_ade, tmp_path, amp))
    runner.train()
    wrapper = runner.optim_wrapper
    assert type(wrapper).__name__ == 'FiniteLossAmpOptimWrapper'
    assert wrapper.cast_dtype == {'bf16': torch.bfloat16, 'fp16': torch.float16}[amp]
    assert wrapper.loss_scaler.is_enabled() == (amp == 'fp16')  # bf16 needs no loss scaling
    losses = losses_logged(runner)
    assert len(losses) == 2 and all(torch.isfinite(torch.tensor(losses)))
    assert (tmp_path / 'iter_2.pth').is_file()
    weights = runner.model.state_dict().values()
    assert all(torch.isfinite(w).all() for w in weights if w.is_floating_point())


def nan_stop_message(root, work_dir, amp):
    cfg = tiny(root, work_dir, amp)
    cfg.model.decode_head.loss_decode.loss_weight = float('nan')
    with pytest.raises(FloatingPointError) as info:
        build_runner(cfg).train()
    assert not list(Path(work_dir).glob('iter_*.pth'))
    return str(info.value)


def test_nan_loss_stops_amp_runs_as_float32(demo_ade, tmp_path):
    float32 = nan_stop_message(demo_ade, tmp_path / 'fp32', None)
    assert float32.startswith('non-finite loss (nan) at iteration 1 on at least one rank')
    for amp in ('bf16', 'fp16'):
        assert nan_stop_message(demo_ade, tmp_path / amp, amp) == float32, amp
    roots = [f'{s}_dataloader.dataset.data_root={demo_ade}' for s in ('train', 'val', 'test')]
    proc = run_tool(
        [
            'tools/train.py',
            CONFIG,
            '--amp',
            '--work-dir',
            tmp_path / 'cli',
            '--cfg-options',
            *roots,
            'train_dataloader.batch_size=2',
            NAN,
        ],
        check=False,
    )
    assert proc.returncode != 0
    assert f'FloatingPointError: {float32}' in proc.stderr.splitlines(), proc.stderr[-3000:]
