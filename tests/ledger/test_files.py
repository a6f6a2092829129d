"""The ledger's files are checked against configs/reproductions.schema.yaml: each kind of bad input
is refused with the file and the key path named; ids are unique and references resolve across
files; a row lives in the file of its config's folder."""

import copy

import pytest
import yaml

from tests.utils import load_tool
from vitspec.errors import LedgerError
from vitspec.ledger.rows import SCHEMA, load_ledger

SHARED = {'datasets': ['toy'], 'sources': {'paper': 'the paper, table 1'}}
FIELD = {'value': 0.1, 'source': 'paper'}
PROTOCOL = {'title': 'toy recipe', 'fields': {'optim_wrapper.optimizer.lr': FIELD}}
ROW = {
    'id': 'r1',
    'paper': 'P',
    'table': 'T1',
    'row': 'ViT-S',
    'metric': 'mIoU',
    'value': 40.0,
    'value_source': 'paper',
    'config': 'configs/toy/x.py',
    'checkpoint': {'file': 'not released', 'source': None},
    'convert': '-',
    'protocol': 'p1',
    'fields': {'model.backbone.out_indices': {'value': 'not found', 'source': None}},
}
TOY = {'protocols': {'p1': PROTOCOL}, 'rows': [ROW]}
TOY_FILE = 'configs/toy/reproductions.yaml'


def write_checkout(root, shared=SHARED, **datasets):
    """A checkout with configs/reproductions.yaml and one ledger file and config per dataset."""
    (root / 'configs').mkdir(exist_ok=True)
    (root / 'configs' / 'reproductions.yaml').write_text(yaml.safe_dump(shared, sort_keys=False))
    for name, data in {'toy': TOY, **datasets}.items():
        (root / 'configs' / name).mkdir(exist_ok=True)
        (root / 'configs' / name / 'x.py').write_text('optim_wrapper = dict(lr=0.1)\n')
        text = data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False)
        (root / 'configs' / name / 'reproductions.yaml').write_text(text)
    return root / 'configs' / 'reproductions.yaml'


def toy_with(change):
    """TOY with ``change(toy)`` applied to a deep copy."""
    toy = copy.deepcopy(TOY)
    change(toy)
    return toy


def test_a_toy_ledger_loads_merged_across_its_files(tmp_path):
    toy2 = {'rows': [{**ROW, 'id': 'r2', 'config': 'configs/toy2/x.py'}]}  # uses toy's p1
    ledger = load_ledger(
        write_checkout(tmp_path, {**SHARED, 'datasets': ['toy', 'toy2']}, toy2=toy2)
    )
    assert [r['id'] for r in ledger['rows']] == ['r1', 'r2']
    assert list(ledger['protocols']) == ['p1'] and list(ledger['sources']) == ['paper']


def field(toy):
    return toy['protocols']['p1']['fields']['optim_wrapper.optimizer.lr']


BAD_DATASET_FILES = {  # what is wrong: (change to TOY, the message it gives)
    'unknown key': (
        lambda t: t['rows'][0]['fields']['model.backbone.out_indices'].update(sorce='paper'),
        f"{TOY_FILE}: rows[0].fields.model.backbone.out_indices: unknown key 'sorce'",
    ),
    'missing key': (
        lambda t: t['rows'][0].pop('config'),
        f"{TOY_FILE}: rows[0]: missing key 'config'",
    ),
    'source missing for a published value': (
        lambda t: field(t).pop('source'),
        f"{TOY_FILE}: protocols.p1.fields.optim_wrapper.optimizer.lr: missing key 'source' "
        "(unless value is 'not found')",
    ),
    'wrong type': (
        lambda t: t['rows'][0].update(value='n/a'),
        f"{TOY_FILE}: rows[0].value: expected number or 'not found', got str 'n/a'",
    ),
    'a bool is not a number': (
        lambda t: t['rows'][0].update(value=True),
        f"{TOY_FILE}: rows[0].value: expected number or 'not found', got bool True",
    ),
    'not in the enum': (
        lambda t: t['rows'][0].update(metric='mIOU'),
        f"{TOY_FILE}: rows[0].metric: 'mIOU' is not one of mIoU, RMSE",
    ),
    'deviation without ours': (
        lambda t: field(t).update(deviation='why'),
        f'{TOY_FILE}: protocols.p1.fields.optim_wrapper.optimizer.lr: ours must be given with '
        'deviation',
    ),
    'field path syntax': (
        lambda t: t['protocols']['p1']['fields'].update({'optim..lr': FIELD}),
        f"{TOY_FILE}: protocols.p1.fields: key 'optim..lr' does not match",
    ),
    'unknown source': (
        lambda t: t['rows'][0].update(value_source='nope'),
        f"{TOY_FILE}: rows[0].value_source: unknown source 'nope'",
    ),
    'unknown field source': (
        lambda t: field(t).update(source='nope'),
        f"{TOY_FILE}: protocols.p1.fields.optim_wrapper.optimizer.lr.source: unknown source 'nope'",
    ),
    'unknown protocol': (
        lambda t: t['rows'][0].update(protocol='p9'),
        f"{TOY_FILE}: rows[0].protocol: unknown protocol 'p9'",
    ),
    'config that does not exist': (
        lambda t: t['rows'][0].update(config='configs/toy/y.py'),
        f'{TOY_FILE}: rows[0].config: no config configs/toy/y.py',
    ),
    'row in the wrong dataset file': (
        lambda t: t['rows'][0].update(config='configs/other/x.py'),
        f'{TOY_FILE}: rows[0].config: configs/other/x.py is not in configs/toy/',
    ),
    'duplicated row id in one file': (
        lambda t: t['rows'].append(copy.deepcopy(t['rows'][0])),
        f"{TOY_FILE}: rows[1].id: 'r1' is also a row of {TOY_FILE}",
    ),
    'rows not a list': (
        lambda t: t.update(rows={'r1': ROW}),
        f'{TOY_FILE}: rows: expected list, got dict',
    ),
}


@pytest.mark.parametrize('case', sorted(BAD_DATASET_FILES))
def test_a_bad_dataset_file_names_the_file_and_key(case, tmp_path):
    change, message = BAD_DATASET_FILES[case]
    (tmp_path / 'configs' / 'other').mkdir(parents=True)
    (tmp_path / 'configs' / 'other' / 'x.py').write_text('')
    with pytest.raises(LedgerError) as error:
        load_ledger(write_checkout(tmp_path, toy=toy_with(change)))
    assert message in str(error.value)


def test_ids_duplicated_across_files_are_refused(tmp_path):
    toy2 = {
        'protocols': {'p1': PROTOCOL},
        'rows': [{**ROW, 'config': 'configs/toy2/x.py'}],
    }
    shared = {**SHARED, 'datasets': ['toy', 'toy2']}
    with pytest.raises(LedgerError) as error:
        load_ledger(write_checkout(tmp_path, shared, toy2=toy2))
    toy2_file = 'configs/toy2/reproductions.yaml'
    assert f"{toy2_file}: rows[0].id: 'r1' is also a row of {TOY_FILE}" in str(error.value)
    assert f'{toy2_file}: protocols.p1: also defined in {TOY_FILE}' in str(error.value)


def test_every_ledger_file_is_listed_and_every_listed_one_exists(tmp_path):
    shared = {**SHARED, 'datasets': ['toy', 'gone']}
    with pytest.raises(LedgerError) as error:
        load_ledger(write_checkout(tmp_path, shared, stray={'rows': []}))
    assert (
        'configs/reproductions.yaml: datasets[1]: no file configs/gone/reproductions.yaml'
        in str(error.value)
    )
    assert 'configs/stray/reproductions.yaml: its folder is not in the datasets of ' in str(
        error.value
    )


@pytest.mark.parametrize(
    'shared, message',
    [
        ({**SHARED, 'rows': []}, "configs/reproductions.yaml: (top level): unknown key 'rows'"),
        ({'sources': {}}, "configs/reproductions.yaml: (top level): missing key 'datasets'"),
        (
            {**SHARED, 'sources': {'paper': 3}},
            'configs/reproductions.yaml: sources.paper: expected',
        ),
    ],
)
def test_a_bad_shared_file_names_the_file_and_key(shared, message, tmp_path):
    with pytest.raises(LedgerError) as error:
        load_ledger(write_checkout(tmp_path, shared))
    assert message in str(error.value)


def test_a_file_that_is_not_yaml_is_named(tmp_path):
    with pytest.raises(LedgerError, match=f'{TOY_FILE}: not YAML'):
        load_ledger(write_checkout(tmp_path, toy='rows: [\n'))


def test_the_schema_is_a_file_of_the_configs():
    assert SCHEMA.is_file() and set(yaml.safe_load(SCHEMA.read_text())['files']) == {
        'shared',
        'dataset',
    }


NOT_REPRODUCED = {
    'id': 'cls-only',
    'paper': 'P',
    'publishes': 'ImageNet top-1',
    'source': 'paper',
    'reason': 'no classification task here',
}


def test_a_paper_without_a_reproducible_result_is_an_entry_with_its_reason(tmp_path):
    shared = {**SHARED, 'not_reproduced': [NOT_REPRODUCED]}
    ledger = load_ledger(write_checkout(tmp_path, shared))
    assert ledger['not_reproduced'] == [NOT_REPRODUCED]
    doc = load_tool('reproductions').render_doc(ledger)
    assert '| P | ImageNet top-1 | no classification task here |  | the paper, table 1 |' in doc
    for key in ('reason', 'source'):
        entry = {k: v for k, v in NOT_REPRODUCED.items() if k != key}
        with pytest.raises(LedgerError, match=rf'not_reproduced\[0\].*{key}'):
            load_ledger(write_checkout(tmp_path, {**SHARED, 'not_reproduced': [entry]}))
    unknown = {**NOT_REPRODUCED, 'source': 'nowhere'}
    with pytest.raises(LedgerError, match='nowhere'):
        load_ledger(write_checkout(tmp_path, {**SHARED, 'not_reproduced': [unknown]}))


def test_always_skip_attention_is_listed_with_the_demo_in_its_place():
    """arXiv 2505.01996 publishes classification only; the suite runs the ablation on its demo."""
    ledger = load_ledger()
    (entry,) = [e for e in ledger['not_reproduced'] if e['id'] == 'always-skip-attention']
    assert '2505.01996' in ledger['sources'][entry['source']]
    assert 'no-{attention,mlp}-skip' in entry['instead']
