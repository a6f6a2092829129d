"""The mmcv-ops benchmark (tools/benchmark.py --mmcv-ops): both kernel sets timed through mmcv's
own ops, interleaved."""

import sys

import mmcv.ops  # noqa: F401  (loads the op modules)
import pytest
import torch

from tools import benchmark as cli
from vitspec.mmcv_ops import benchmark as mo
from vitspec.mmcv_ops import kernels
from vitspec.mmcv_ops.kernel_sets import MMCV, VITSPEC


def tiny_cases():
    return (
        mo.OpCase('nms', '50 boxes', mo._nms(50)),
        mo.OpCase('roi_align fwd+bwd', '8 RoIs', mo._roi_align(8, 4, 16)),
        mo.OpCase('ms_deform_attn fwd+bwd', 'tiny', mo._deform_attn(10, 2, 4, ((4, 4),)), True),
        mo.OpCase('modulated_deform_conv fwd+bwd', 'tiny', mo._deform_conv(4, 8)),
    )


def test_both_kernel_sets_are_timed_in_turn_and_restored(monkeypatch):
    nms_module = sys.modules['mmcv.ops.nms']
    calls = []

    class Counting:
        """vitspec's kernels under another name, counting the NMS calls that reach them."""

        def __getattr__(self, name):
            if name == 'nms':
                calls.append(name)
            return getattr(kernels, name)

    before = nms_module.ext_module
    sets = {VITSPEC: kernels, MMCV: Counting()}
    row = mo.time_case(tiny_cases()[0], sets, torch.device('cpu'), rounds=3, warmup=1)
    assert len(calls) == 4  # warm-up + 3 rounds through the second set
    assert nms_module.ext_module is before
    assert row['op'] == 'nms' and row['torchvision_ms'] > 0 and row['compiled_ms'] > 0
    mid, low, high = row['speed']
    assert low <= mid <= high
    table = mo.format_ops_table([row])
    assert '| nms | 50 boxes |' in table


def test_the_cli_runs_every_cpu_case_and_writes_json(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(mo, 'CASES', tiny_cases())
    monkeypatch.setattr(cli, 'run_mmcv_ops', mo.run_mmcv_ops)
    out = tmp_path / 'ops.json'
    cli.main(['--mmcv-ops', '--device', 'cpu', '--rounds', '2', '--warmup', '0', '--out', str(out)])
    printed = capsys.readouterr().out
    assert 'nms' in printed and 'modulated_deform_conv' in printed
    assert 'ms_deform_attn' not in printed  # no compiled CPU kernel to compare: CUDA only
    assert out.is_file()


def test_mmcv_ops_refuses_other_modes():
    with pytest.raises(SystemExit):
        cli.main(['--mmcv-ops', '--preset', 'readme'])


def test_configs_run_once_per_kernel_set():
    args = cli.argparse.Namespace(config=['a/x.py', 'b/y.py'], mmcv_kernels=[MMCV, VITSPEC])
    specs = cli._config_specs(args)
    assert [s['name'] for s in specs] == [
        'x[compiled]',
        'x[torchvision]',
        'y[compiled]',
        'y[torchvision]',
    ]
    assert [s['kernels'] for s in specs] == [MMCV, VITSPEC] * 2
    args.mmcv_kernels = None
    assert cli._config_specs(args) == ['a/x.py', 'b/y.py']
