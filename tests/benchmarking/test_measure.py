"""vitspec.benchmarking workers and settings: failures are named, bf16 without units skipped."""

import pytest
import torch

from vitspec.benchmarking.machine import why_not_measured
from vitspec.benchmarking.measure import run_setting
from vitspec.benchmarking.report import format_table
from vitspec.benchmarking.targets import check_targets
from vitspec.benchmarking.worker import Worker


def test_a_model_that_cannot_be_built_is_named():
    with pytest.raises(RuntimeError, match="benchmark model 'specvit-nope': KeyError"):
        Worker('specvit-nope', 't8', 32, 2, 'fp32', 'inference', torch.device('cpu'))


def test_bf16_on_a_cpu_without_bf16_units_is_reported_not_measured(monkeypatch):
    monkeypatch.setattr(torch.cpu, '_is_amx_tile_supported', lambda: False)
    monkeypatch.setattr(torch.cpu, '_is_avx512_bf16_supported', lambda: False)
    cpu = torch.device('cpu')
    setting = dict(size='t8', img=32, batch=2, dtype='bf16', mode='inference', models=['timm'])
    assert why_not_measured(dict(setting, dtype='fp32'), cpu) is None
    assert why_not_measured(setting, torch.device('cuda')) is None
    skipped = run_setting(setting, cpu, rounds=2, warmup=1)  # builds no worker
    assert 'AMX' in skipped['skipped'] and skipped['rows'] == []
    assert format_table(skipped).startswith(
        't8 32x32 batch 2 bf16 inference on cpu: not measured, this CPU has neither AMX'
    )
    measured = dict(rows=[dict(model='timm', median_s=1.0, memory_mb=None)])
    [line] = check_targets(
        [('bf16', (1, 'timm'), (0, 'timm'), 'speed', '>= 1.60')], [measured, skipped]
    )
    assert line.startswith('- bf16: not measured (this CPU has neither AMX') and line.endswith(
        '(target >= 1.60)'
    )
