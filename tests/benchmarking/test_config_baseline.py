"""tools/benchmark.py --config A --config B --baseline NAME: the speeds refer to the named
config (not the first), an unknown name or a config that does not exist is refused before any
model is built, with the names there are (the workers are stand-ins: no model is timed)."""

import json

import pytest

from tests.utils import ROOT
from tools.benchmark import main
from vitspec.benchmarking import config_runs
from vitspec.benchmarking.config_report import format_config_table
from vitspec.benchmarking.config_source import check_config_exists

DEMO = ROOT / 'configs' / 'demo'
SEG = str(DEMO / 'fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py')
SPEC = 'vitspec::demo/fcn_specvit-tiny-p8-spec_2xb4-500it_demo-ade20k-128x128.py'
SECONDS = {'fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128': 2.0}  # the other: 1.0


class FakeWorker:
    """A config's worker whose step takes SECONDS[name] (1.0 by default)."""

    built = []

    def __init__(self, name, config, device, batch, options, mode, *kernels):
        self.name = name
        FakeWorker.built.append(name)

    def describe(self):
        return dict(
            mode='training',
            task='segmentation',
            batch=2,
            size=[64, 64],
            optim_wrapper='OptimWrapper',
            precision='fp32',
            fp16_key_ignored=False,
        )

    def memory_bytes(self):
        return 2**20

    def close(self):
        pass


def fake_times(cases, rounds, warmup):
    return {c.name: [SECONDS.get(c.name, 1.0)] * rounds for c in cases}


@pytest.fixture
def fake_workers(monkeypatch):
    FakeWorker.built = []
    monkeypatch.setattr(config_runs, 'ConfigWorker', FakeWorker)
    monkeypatch.setattr(config_runs, 'interleaved_times', fake_times)


def test_the_speeds_refer_to_the_named_baseline(fake_workers, tmp_path, capsys):
    out = tmp_path / 'b.json'
    spec_name = SPEC.split('/')[-1][:-3]
    argv = ['--config', SEG, '--config', SPEC, '--baseline', spec_name, '--rounds', '3']
    main([*argv, '--warmup', '0', '--device', 'cpu', '--out', str(out)])
    [result] = json.loads(out.read_text())['results']
    assert result['baseline'] == spec_name
    rows = {r['name']: r for r in result['rows']}
    assert rows[spec_name]['speed_vs_baseline'] == 1.0
    assert rows[FakeWorker.built[0]]['speed_vs_baseline'] == 0.5  # twice the baseline's time
    assert f'| speed vs {spec_name} (95 % interval) |' in format_config_table(result)


def test_without_baseline_the_first_config_is_it(fake_workers):
    result = config_runs.run_configs([SEG, SPEC], 'cpu', rounds=2, warmup=0)
    first, second = result['rows']
    assert result['baseline'] == first['name']
    assert (first['speed_vs_baseline'], second['speed_vs_baseline']) == (1.0, 2.0)


def test_an_unknown_baseline_is_refused_before_a_model_is_built(fake_workers, capsys):
    with pytest.raises(SystemExit):
        main(['--config', SEG, '--config', SPEC, '--baseline', 'foo', '--device', 'cpu'])
    err = capsys.readouterr().err
    assert "--baseline 'foo' names none of the configs" in err
    assert 'fcn_specvit-tiny-p8-spec_2xb4-500it_demo-ade20k-128x128' in err
    assert FakeWorker.built == []
    with pytest.raises(ValueError, match="'foo' names none"):
        config_runs.run_configs([SEG, SPEC], 'cpu', rounds=1, warmup=0, baseline='foo')
    assert FakeWorker.built == []


@pytest.mark.parametrize(
    ('config', 'says'),
    [
        ('mmseg::nonexistent.py', 'no such config in'),
        (
            'mmseg::mae/mae-base_upernet_8xb2-amp-160k_ade20k-512.py',
            "did you mean 'mae/mae-base_upernet_8xb2-amp-160k_ade20k-512x512.py'",
        ),
        ('vitspec::demo/nothing.py', 'no such config in'),
        ('mmnothing::a/b.py', "'mmnothing' is no installed package"),
        (SEG[:-10] + '.py', "did you mean 'fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'"),
    ],
)
def test_a_config_that_does_not_exist_is_refused_at_once(fake_workers, capsys, config, says):
    with pytest.raises(FileNotFoundError, match='did you mean|no such|no installed') as raised:
        check_config_exists(config)
    assert says in str(raised.value)
    with pytest.raises(SystemExit):
        main(['--config', config, '--device', 'cpu'])
    assert says in capsys.readouterr().err
    assert FakeWorker.built == []
