"""A '+compile' benchmark model: compiled in its worker, its compilation reported apart from the
timed rounds, its work counted like the eager model's. Wiring only: no timing is asserted."""

import pytest
import torch

from vitspec.benchmarking.measure import run_setting
from vitspec.benchmarking.models import base_name
from vitspec.benchmarking.presets import PRESETS, TARGETS
from vitspec.benchmarking.report import format_table


def test_compiled_names_build_the_base_model():
    assert base_name('specvit+compile') == ('specvit', True)
    assert base_name('timm') == ('timm', False)


@pytest.mark.slow
def test_a_compiled_row_reports_its_compilation_apart():
    setting = dict(
        size='t8',
        img=32,
        batch=2,
        dtype='fp32',
        mode='inference',
        models=['timm', 'specvit+compile'],
    )
    result = run_setting(setting, torch.device('cpu'), rounds=2, warmup=1)
    eager, compiled = result['rows']
    assert eager['compile_s'] is None and compiled['compile_s'] > 0
    assert len(compiled['times_s']) == 2  # the compiling step is not among the timed ones
    assert compiled['gflops'] == pytest.approx(eager['gflops'])  # the same work, counted eagerly
    table = format_table(result)
    assert '| memory MB | compile s |' in table
    assert table.splitlines()[-1].startswith('| specvit+compile |')
    eager_row, compiled_row = table.splitlines()[-2:]
    assert '| - | - | ' in eager_row  # timm: eager (no compile time), no inference memory
    assert eager_row.endswith('| flash_for_cpu |')  # its ops counted, down to the attention
    assert compiled_row.endswith('| - | - | - | - | - |')  # inductor's kernels: not counted


def test_the_compile_preset_compares_compiled_specvit_with_eager_timm_in_one_setting():
    [inference] = [
        (a, b, bound) for what, a, b, q, bound in TARGETS['compile'] if 'timm, inf' in what
    ]
    (i, compiled), (j, timm), bound = inference
    assert i == j and (compiled, timm, bound) == ('specvit+compile', 'timm', '>= 1.20')
    setting = PRESETS['compile'][i]
    assert (setting['size'], setting['batch'], setting['mode']) == ('s16', 8, 'inference')
