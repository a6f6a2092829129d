"""tools/make_model_table.py: docs/model_zoo.md lists every benchmark config and is current."""

import pytest

from tests.utils import ROOT, run_tool
from vitspec.config.location import DATASETS
from vitspec.ledger.model_table import describe, model_table


def test_every_config_listed_once():
    table = model_table()
    for folder, _ in DATASETS:
        for config in (ROOT / 'configs' / folder).glob('*.py'):
            assert table.count(f'](../configs/{folder}/{config.name})') == 1, config


def test_technique_read_from_base_lines():
    row = describe(ROOT / 'configs/demo/fcn_specvit-tiny-p8-spec_2xb4-500it_demo-ade20k-128x128.py')
    assert (row['technique'], row['backbone'], row['crop']) == (
        'specialized',
        'specvit-tiny-p8',
        '128x128',
    )


@pytest.mark.slow
def test_committed_table_is_current():
    proc = run_tool(['tools/make_model_table.py', '--check'], check=False)
    assert proc.returncode == 0, proc.stderr  # else: 'docs/model_zoo.md is out of date'
    assert proc.stdout == ''  # --check writes nothing
