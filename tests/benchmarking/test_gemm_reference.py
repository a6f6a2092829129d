"""The reference GEMM rate of tools/benchmark.py's "GEMM fraction": the best of several shapes,
the model's own among them, each timed long enough; a fraction above 1 is never shown."""

import pytest
import torch

from vitspec.benchmarking import machine
from vitspec.benchmarking.measure import checked_gemm_fractions
from vitspec.benchmarking.report import format_table


class FakeClock:
    """A timer under which one torch.mm of m x k x n takes m*k*n / ``rates[(m, k, n)]`` s."""

    def __init__(self, monkeypatch, rates):
        self.now = 0.0
        real_mm = torch.mm

        def mm(a, b):
            m, k = a.shape
            self.now += m * k * b.shape[1] / rates.get((m, k, b.shape[1]), 1e9)
            return real_mm(a[:1, :1], b[:1, :1])

        monkeypatch.setattr(torch, 'mm', mm)

    def __call__(self):
        return self.now


def test_the_reference_is_the_best_rate_over_squares_and_the_models_own_shapes(monkeypatch):
    """A single 2048^3 GEMM measured 103 GFLOP/s on a host where ViT-S/16 itself reached more:
    its own (tokens x 384) x (384 x 1536) GEMM runs faster there."""
    shapes = machine.model_gemm_shapes('s16', img=32, batch=2)
    assert shapes == [(8, 384, 1152), (8, 384, 384), (8, 384, 1536), (8, 1536, 384)]
    clock = FakeClock(monkeypatch, {(8, 8, 8): 2e9, (8, 384, 1536): 5e9})
    cpu = torch.device('cpu')
    rate = machine.gemm_rate(cpu, 'fp32', shapes, squares=(8, 16), rounds=3, timer=clock)
    assert rate == pytest.approx(2 * 5e9)  # 2 flops per multiply-add
    assert machine.gemm_rate(
        cpu, 'fp32', (), squares=(8, 16), rounds=3, timer=clock
    ) == pytest.approx(4e9)


def test_each_shape_is_timed_over_enough_calls(monkeypatch):
    """A GEMM of 1 ms is timed in rounds of 64 calls (>= MIN_SECONDS), not one call each."""
    clock = FakeClock(monkeypatch, {(2, 2, 2): 8 / 1e-3})
    rate = machine.gemm_rate(
        torch.device('cpu'), 'fp32', [(2, 2, 2)], squares=(), rounds=2, timer=clock
    )
    assert clock.now == pytest.approx(1e-3 * (1 + 2 + 4 + 8 + 16 + 32 + 64 + 64))
    assert rate == pytest.approx(2 * 8 / 1e-3)


def rows(*fractions):
    return [dict(model=f'm{i}', gemm_fraction=f) for i, f in enumerate(fractions)]


def test_a_fraction_above_one_marks_the_reference_unreliable_and_none_is_shown():
    ok, bad = rows(0.4, 0.9), rows(0.5, 1.27)
    assert not checked_gemm_fractions(ok) and [r['gemm_fraction'] for r in ok] == [0.4, 0.9]
    assert checked_gemm_fractions(bad) and [r['gemm_fraction'] for r in bad] == [None, None]
    row = dict(
        median_s=0.01,
        speed_vs_baseline=1.0,
        speed_interval=[1.0, 1.0],
        gflops=9.2,
        memory_mb=None,
        compile_s=None,
    )
    result = dict(
        setting=dict(size='s16', img=224, batch=1, dtype='fp32', mode='inference'),
        device='cpu',
        gemm_gflops_per_s=103.0,
        gemm_reference_unreliable=True,
        baseline='m0',
        rows=[dict(row, **r) for r in bad],
    )
    table = format_table(result)
    assert 'GEMM 103 GFLOP/s measured below what a model reached: unreliable' in table
    assert '1.27' not in table and '| 9.2 | - |' in table
