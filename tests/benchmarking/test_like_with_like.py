"""Like with like under mixed precision: timm's ViT with SpecViT's LayerScale (`timm-ls`), fp16
settings, a --baseline that names a model of the setting, and the `gpu` / `amp-cpu` presets.
Wiring only: no timing is asserted."""

import pytest
import torch

from tools.benchmark import main
from vitspec.benchmarking.case import Case
from vitspec.benchmarking.machine import gemm_rate, why_not_measured
from vitspec.benchmarking.measure import run_setting
from vitspec.benchmarking.models import MODELS, base_name, build
from vitspec.benchmarking.presets import PRESETS, TARGETS
from vitspec.benchmarking.report import format_table
from vitspec.benchmarking.targets import check_targets

CPU = torch.device('cpu')


def _layer_scales(model):
    return [p for n, p in model.named_parameters() if n.endswith('gamma')]


def test_timm_ls_has_the_layer_scale_of_specvit_ls():
    timm_ls, specvit_ls = build('timm-ls', 't8'), build('specvit-ls', 't8')
    assert _layer_scales(build('timm', 't8')) == []
    ours, theirs = _layer_scales(specvit_ls), _layer_scales(timm_ls)
    assert len(theirs) == len(ours) == 2 * 4  # attention and MLP of each of the 4 blocks
    for got, want in zip(theirs, ours, strict=True):
        assert torch.equal(got, want) and torch.all(want == 1e-5)


def test_an_fp16_setting_runs_under_fp16_autocast_on_cpu():
    case = Case('specvit-ls', 't8', 32, 2, 'fp16', 'training', CPU)
    with case.autocast:
        assert torch.is_autocast_enabled('cpu') and torch.get_autocast_dtype('cpu') == torch.float16
    assert case.timed() > 0 and case.flops() > 0
    fp32 = Case('specvit-ls', 't8', 32, 2, 'fp32', 'training', CPU)
    assert case.op_counts()['casts'] > fp32.op_counts()['casts']  # autocast's casts to fp16
    assert gemm_rate(CPU, 'fp16', squares=(64,), rounds=1) > 0


def test_fp16_on_a_cpu_without_fp16_units_is_not_measured(monkeypatch):
    setting = dict(size='t8', img=32, batch=2, dtype='fp16', mode='training', models=['timm'])
    monkeypatch.setattr(torch.cpu, 'get_capabilities', lambda: {'avx512_fp16': False})
    assert 'AVX512-FP16' in why_not_measured(setting, CPU)
    assert why_not_measured(setting, torch.device('cuda')) is None
    monkeypatch.setattr(torch.cpu, 'get_capabilities', lambda: {'avx512_fp16': True})
    assert why_not_measured(setting, CPU) is None


def test_a_baseline_outside_the_setting_is_refused(capsys):
    setting = dict(size='t8', img=32, batch=2, dtype='fp32', mode='training', models=['timm'])
    with pytest.raises(ValueError, match="baseline 'specvit' is not a model of the setting"):
        run_setting(setting, CPU, rounds=1, warmup=0, baseline='specvit')
    argv = ['--models', 'timm', 'specvit-ls', '--size', 't8', '--baseline', 'timm-ls']
    with pytest.raises(SystemExit) as exit_:
        main(argv)  # refused before any worker starts
    assert exit_.value.code == 2
    assert "baseline 'timm-ls' is not a model" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(['--preset', 'amp-cpu', '--baseline', 'timm'])


def _row(model, ops):
    return dict(
        model=model,
        median_s=0.1,
        speed_vs_baseline=1.0,
        speed_interval=[1.0, 1.0],
        gflops=1.0,
        gemm_fraction=0.5,
        memory_mb=None,
        compile_s=None,
        ops=ops,
        kernels=ops and 80,
        casts=ops and 3,
        attention=ops and 'flash',
        gemms=ops and 2,
    )


def test_training_tables_show_the_op_counts():
    setting = dict(size='t8', img=32, batch=2, dtype='bf16', mode='training')
    result = dict(setting=setting, device='cpu', gemm_gflops_per_s=1.0, baseline='timm-ls')
    table = format_table(dict(result, rows=[_row('timm-ls', 100), _row('specvit+compile', None)]))
    head, columns, _, counted, compiled = table.splitlines()
    assert columns.endswith('| compile s | ops | kernels | casts | GEMMs | attention |')
    assert counted.endswith('| - | - | 100 | 80 | 3 | 2 | flash |')
    assert compiled.endswith('| - | - | - | - | - | - | - |')
    inference = format_table(dict(result, rows=[_row('timm-ls', None)]))
    assert inference.splitlines()[1].endswith('| memory MB | compile s |')


def test_a_case_counts_the_ops_of_its_step():
    training = Case('timm-ls', 't8', 32, 4, 'bf16', 'training', CPU)
    counts = training.op_counts()
    assert set(counts) == {'ops', 'kernels', 'casts', 'gemms', 'attention'}
    assert counts['attention'] == 'flash_for_cpu'  # SDPA's fused CPU kernel
    assert counts['ops'] > counts['kernels'] > counts['gemms'] > 0
    assert all(p.grad is None for p in training.eager.parameters())  # not left behind
    inference = Case('timm-ls', 't8', 32, 4, 'bf16', 'inference', CPU).op_counts()
    # the forward's GEMMs only: a third of forward + backward's
    assert 0 < 3 * inference['gemms'] == counts['gemms']


@pytest.mark.slow
def test_op_counts_reach_the_rows_of_a_training_setting():
    setting = dict(size='t8', img=32, batch=2, dtype='fp32', mode='training')
    result = run_setting(dict(setting, models=['timm-ls', 'specvit-ls']), CPU, 1, 0, 'specvit-ls')
    timm_ls, specvit_ls = result['rows']
    assert result['baseline'] == 'specvit-ls' and specvit_ls['speed_vs_baseline'] == 1.0
    assert timm_ls['gemms'] > 0 and specvit_ls['gemms'] > 0
    assert '| ops | kernels | casts | GEMMs |' in format_table(result)


def test_the_gpu_preset_times_vit_b16_batch_64_under_amp_on_cuda_only():
    settings = PRESETS['gpu']
    assert {(s['dtype'], s['mode']) for s in settings} == {
        (d, m) for d in ('bf16', 'fp16') for m in ('training', 'inference')
    }
    for setting in settings:
        assert (setting['size'], setting['img'], setting['batch']) == ('b16', 224, 64)
        assert {'timm', 'timm-ls', 'specvit-ls', 'specvit-spec', 'specvit-lora'} <= set(
            setting['models']
        )
        assert all(base_name(m)[0] in MODELS for m in setting['models'])
        assert ('specvit+compile' in setting['models']) == (setting['mode'] == 'training')
        assert why_not_measured(setting, torch.device('cuda')) is None
    skipped = [run_setting(s, CPU, rounds=1, warmup=0) for s in settings]  # builds no worker
    assert format_table(skipped[0]).endswith('not measured, a setting for cuda, not timed on cpu')
    checks = check_targets(TARGETS['gpu'], skipped)
    assert len(checks) == 4 * 3 + 2 and all('not measured' in line for line in checks)


@pytest.mark.parametrize('preset', ['gpu', 'amp-cpu'])
def test_amp_targets_compare_like_with_like(preset):
    bounds = {
        (PRESETS[preset][i]['mode'], a, b): bound
        for _, (i, a), (j, b), quantity, bound in TARGETS[preset]
        if i == j and quantity == 'speed'
    }
    for mode, fast, slow in (
        ('training', '>= 0.97', '>= 0.95'),
        ('inference', '>= 0.98', '>= 0.98'),
    ):
        assert bounds[mode, 'specvit-ls', 'timm-ls'] == fast
        assert bounds[mode, 'specvit-spec', 'specvit-ls'] == slow
        assert bounds[mode, 'specvit-lora', 'specvit-ls'] == slow
