import json

from tests.utils import run_tool


def test_toy_preset_writes_table_and_json(tmp_path):
    out = tmp_path / 'bench.json'
    proc = run_tool(['tools/benchmark.py', '--preset', 'toy', '--rounds', 2, '--warmup', 1,
                     '--out', out])
    assert '| model | median ms | speed vs baseline |' in proc.stdout
    result = json.loads(out.read_text())['results'][0]
    assert result['baseline'] == 'timm' and result['gemm_gflops_per_s'] > 0
    rows = {r['model']: r for r in result['rows']}
    assert set(rows) == {'timm', 'specvit', 'specvit-spec'}
    assert rows['timm']['speed_vs_baseline'] == 1.0
    for r in rows.values():
        assert r['median_s'] > 0 and r['runs'] == 2 and r['memory_mb'] > 0
        assert r['gflops'] > 0 and 0 < r['gemm_fraction']
    # same architecture, same FLOPs: the specialization adds parameters, not compute
    assert abs(rows['specvit']['gflops'] - rows['timm']['gflops']) / rows['timm']['gflops'] < 0.02
