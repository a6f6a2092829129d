"""tools/benchmark.py: the toy preset prints its table and writes the JSON record."""

import json

import pytest

from tests.utils import load_tool, run_tool


@pytest.mark.slow
def test_toy_preset_writes_table_and_json(tmp_path):
    out = tmp_path / 'bench.json'
    proc = run_tool(
        ['tools/benchmark.py', '--preset', 'toy', '--rounds', 2, '--warmup', 1, '--out', out]
    )
    assert '| model | median ms | speed vs baseline (95 % interval) |' in proc.stdout
    written = json.loads(out.read_text())
    assert written['machine'].endswith(f'{written["threads"]} threads')  # who measured it
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


def test_pipelines_write_their_ratios(realdata, tmp_path, capsys):
    """--pipelines at a toy size: the table, and the record with the machine and the target."""
    benchmark = load_tool('benchmark')
    out = tmp_path / 'pipelines.json'
    argv = ['--pipelines', 'nyu', '--data', str(realdata), '--rounds', '1', '--calls', '1']
    benchmark.main([*argv, '--out', str(out)])
    assert '| nyu | 1 |' in capsys.readouterr().out
    written = json.loads(out.read_text())
    assert written['target_ratio'] == 1.03 and written['machine']
    (row,) = written['results']
    assert row['name'] == 'nyu' and set(row['median_s']) == {'vitspec', 'plain'}


def test_pipelines_need_the_data_folder(tmp_path, capsys):
    benchmark = load_tool('benchmark')
    with pytest.raises(SystemExit):
        benchmark.main(['--pipelines', 'nyu', '--out', str(tmp_path / 'p.json')])
    assert '--pipelines needs --data' in capsys.readouterr().err
