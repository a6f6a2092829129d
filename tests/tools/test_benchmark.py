import json

import pytest
import torch

from tests.utils import run_tool


def test_toy_preset_writes_table_and_json(tmp_path):
    out = tmp_path / 'bench.json'
    proc = run_tool(['tools/benchmark.py', '--preset', 'toy', '--rounds', 2, '--warmup', 1,
                     '--out', out])
    assert '| model | median ms | speed vs baseline (95 % interval) |' in proc.stdout
    written = json.loads(out.read_text())
    assert written['machine'].endswith(f"{written['threads']} threads")  # who measured it
    result = written['results'][0]
    assert result['baseline'] == 'timm' and result['gemm_gflops_per_s'] > 0
    rows = {r['model']: r for r in result['rows']}
    assert set(rows) == {'timm', 'specvit', 'specvit-spec'}
    assert rows['timm']['speed_vs_baseline'] == 1.0 and rows['timm']['speed_interval'] == [1, 1]
    for r in rows.values():
        assert r['median_s'] > 0 and r['runs'] == len(r['times_s']) == 2 and r['memory_mb'] > 0
        low, high = r['speed_interval']
        assert low <= r['speed_vs_baseline'] <= high
        assert r['gflops'] > 0 and 0 < r['gemm_fraction']
    # same architecture, same FLOPs: the specialization adds parameters, not compute
    assert abs(rows['specvit']['gflops'] - rows['timm']['gflops']) / rows['timm']['gflops'] < 0.02


def test_targets_compare_the_named_rows():
    from tools.benchmark import check_targets
    results = [dict(rows=[dict(model='timm', median_s=1.0, times_s=[1.0] * 10, memory_mb=None),
                          dict(model='specvit', median_s=0.8, times_s=[0.8] * 10,
                               memory_mb=None)]),
               dict(rows=[dict(model='specvit', median_s=2.0, times_s=[2.0] * 10,
                               memory_mb=100.0),
                          dict(model='specvit-spec', median_s=2.2, times_s=[2.2] * 10,
                               memory_mb=101.0)])]
    lines = check_targets([
        ('speed', (0, 'specvit'), (0, 'timm'), 'speed', '>= 1.00'),
        ('time', (1, 'specvit-spec'), (1, 'specvit'), 'time', '<= 1.05'),
        ('memory', (1, 'specvit-spec'), (1, 'specvit'), 'memory', '<= 1.02'),
        ('across settings', (1, 'specvit'), (0, 'specvit'), 'speed', '>= 0.50'),
    ], results)
    assert lines == ['- speed: 1.250 (95 % interval 1.250-1.250) (target >= 1.00) ok',
                     '- time: 1.100 (95 % interval 1.100-1.100) (target <= 1.05) MISSED',
                     '- memory: 1.010 (target <= 1.02) ok',
                     '- across settings: 0.400 (target >= 0.50) MISSED']


def test_median_interval_takes_the_order_statistics_of_the_binomial_table():
    from tools.benchmark import median_interval
    # published 95 % ranks for the median: n = 10 -> 2nd and 9th, n = 40 -> 14th and 27th
    assert median_interval(range(1, 11)) == (5.5, 2, 9)
    assert median_interval(range(1, 41)) == (20.5, 14, 27)
    assert median_interval([3, 1, 2]) == (2, 1, 3)  # too few values: min and max


def test_paired_ratio_cancels_what_a_round_shares():
    from tools.benchmark import check_targets, paired_ratio
    # the host's speed moves by 60 % over the run; the model is 2 % slower in every round
    host = [1.0 + 0.6 * ((7 * r) % 10) / 10 for r in range(40)]
    base = [h * 0.5 for h in host]
    model = [h * 0.51 for h in host]
    assert paired_ratio(model, base) == pytest.approx((1.02, 1.02, 1.02))
    noisy = [m * (1.04 if r % 2 else 0.97) for r, m in enumerate(model)]
    ratio, low, high = paired_ratio(noisy, base)
    assert low < 1.00 < ratio < 1.03 < high
    rows = [dict(model='base', times_s=base, median_s=None),
            dict(model='noisy', times_s=noisy, median_s=None)]
    target = ('t', (0, 'noisy'), (0, 'base'), 'time', '<= 1.00')
    [line] = check_targets([target], [dict(rows=rows)])
    assert line.endswith('(target <= 1.00) MISSED, within the noise')


def test_every_target_names_a_measured_row():
    from tools.benchmark import PRESETS, TARGETS
    for preset, targets in TARGETS.items():
        settings = PRESETS[preset]
        for what, *pairs, quantity, _ in targets:
            for index, model in pairs:
                assert model in settings[index]['models'], (preset, what)
                if quantity == 'memory':
                    assert settings[index]['mode'] == 'training', (preset, what)  # CPU memory


def test_a_model_that_cannot_be_built_is_named():
    from tools.benchmark import Worker
    with pytest.raises(RuntimeError, match="benchmark model 'specvit-nope': KeyError"):
        Worker('specvit-nope', 't8', 32, 2, 'fp32', 'inference', torch.device('cpu'))


def test_bf16_on_a_cpu_without_bf16_units_is_reported_not_measured(monkeypatch):
    import tools.benchmark as bench
    monkeypatch.setattr(torch.cpu, '_is_amx_tile_supported', lambda: False)
    monkeypatch.setattr(torch.cpu, '_is_avx512_bf16_supported', lambda: False)
    cpu = torch.device('cpu')
    setting = dict(size='t8', img=32, batch=2, dtype='bf16', mode='inference', models=['timm'])
    assert bench.why_not_measured(dict(setting, dtype='fp32'), cpu) is None
    assert bench.why_not_measured(setting, torch.device('cuda')) is None
    skipped = bench.run_setting(setting, cpu, rounds=2, warmup=1)  # builds no worker
    assert 'AMX' in skipped['skipped'] and skipped['rows'] == []
    assert bench.format_table(skipped).startswith('t8 32x32 batch 2 bf16 inference on cpu: not '
                                                  'measured, this CPU has neither AMX')
    measured = dict(rows=[dict(model='timm', median_s=1.0, memory_mb=None)])
    [line] = bench.check_targets([('bf16', (1, 'timm'), (0, 'timm'), 'speed', '>= 1.60')],
                                 [measured, skipped])
    assert line.startswith('- bf16: not measured (this CPU has neither AMX') and line.endswith(
        '(target >= 1.60)')
