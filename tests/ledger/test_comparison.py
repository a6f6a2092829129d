"""tools/reproductions.py --compare on work dirs laid out as mmengine 0.10.7 writes them: a run is
matched to the rows of its dumped config, its final metrics are read (a tools/test.py result
before the validation at the end of training), and whatever cannot be compared is named."""

import json
import re
from pathlib import Path

import yaml
from mmengine.config import Config

from tests.utils import ROOT
from vitspec.ledger.comparison import compare
from vitspec.ledger.metrics import LEDGER_METRICS
from vitspec.ledger.rows import SCHEMA, load_ledger

CONFIG = 'configs/toy/seg_x.py'
DUMP = "train_cfg = dict(type='IterBasedTrainLoop', max_iters=30)\nlr = 0.1\n"


def row(**changes):
    return {
        'id': 'r1',
        'metric': 'mIoU',
        'value': 40.0,
        'config': CONFIG,
        'fields': {'lr': {'value': 0.1, 'source': 'paper'}},
        **changes,
    }


def ledger(*rows):
    return {'protocols': {}, 'rows': list(rows) or [row()]}


def work_dir(tmp_path, records=(), test=None, dump=DUMP, name='seg_x.py'):
    """A work dir: the config dump, one run's validation records, optionally a tools/test.py
    result in a later run's folder."""
    wd = tmp_path / 'work'
    (wd / '20250101_000000' / 'vis_data').mkdir(parents=True)
    (wd / name).write_text(dump)
    scalars = ''.join(json.dumps(r) + '\n' for r in records)
    (wd / '20250101_000000' / 'vis_data' / 'scalars.json').write_text(scalars)
    if test is not None:
        (wd / '20250102_000000').mkdir()
        (wd / '20250102_000000' / '20250102_000000.json').write_text(json.dumps(test))
    return wd


def cells(line: str) -> list:
    return re.split(r'\s{2,}', line.strip())


def validation(step, miou):
    return {'aAcc': 90.0, 'mIoU': miou, 'mAcc': 60.0, 'data_time': 0.1, 'time': 0.3, 'step': step}


def train(step):
    return {'lr': 1e-3, 'loss': 1.0, 'iter': step, 'step': step}


def test_the_validation_at_the_end_of_training_is_compared_with_the_row(tmp_path):
    wd = work_dir(tmp_path, [train(10), validation(10, 30.0), train(30), validation(30, 38.75)])
    text, compared = compare(ledger(), [wd])
    assert compared, text
    header, line = text.splitlines()
    assert cells(header) == [
        'run',
        'row',
        'metric',
        'published',
        'measured',
        'difference',
        'read from',
    ]
    assert cells(line) == ['work', 'r1', 'mIoU', '40.00', '38.75', '-1.25', 'validation at iter 30']


def test_a_tools_test_result_is_read_before_the_validation_and_ap_is_in_points(tmp_path):
    rows = [
        row(id='box', metric='box AP', value=51.6),
        row(id='mask', metric='mask AP', value=45.9),
    ]
    test = {'coco/bbox_mAP': 0.523, 'coco/segm_mAP': 0.455}
    wd = work_dir(tmp_path, [train(30), validation(30, 38.75)], test=test)
    text, compared = compare(ledger(*rows), [wd])
    assert compared, text
    origin = 'tools/test.py 20250102_000000'
    assert [cells(line) for line in text.splitlines()[1:]] == [
        ['work', 'box', 'box AP', '51.60', '52.30', '+0.70', origin],
        ['work', 'mask', 'mask AP', '45.90', '45.50', '-0.40', origin],
    ]


def test_a_run_whose_config_is_no_rows_says_so(tmp_path):
    wd = work_dir(tmp_path, [train(30), validation(30, 38.75)], name='other.py')
    text, compared = compare(ledger(), [wd])
    assert not compared
    assert f'{wd}: its config other.py is the config of no ledger row' in text
    assert 'no run matched a ledger row' in text


def test_a_work_dir_without_a_config_dump_says_so(tmp_path):
    wd = work_dir(tmp_path, [validation(30, 38.75)])
    (wd / 'seg_x.py').unlink()
    text, compared = compare(ledger(), [wd])
    assert not compared and f'{wd}: no config dump' in text


def test_a_run_without_metrics_says_so(tmp_path):
    wd = work_dir(tmp_path, [train(10), train(20)])
    text, compared = compare(ledger(), [wd])
    assert not compared
    assert f'{wd}: no final metrics: no tools/test.py result' in text
    assert '(rows r1)' in text


def test_an_unfinished_run_has_no_final_metrics(tmp_path):
    wd = work_dir(tmp_path, [train(10), validation(10, 30.0), train(20)])
    text, compared = compare(ledger(), [wd])
    assert not compared
    assert 'training has not finished (its last validation is at iter 10, training ends at 30)' in (
        text
    )
    assert '30.00' not in text


def test_a_metric_that_was_not_logged_is_named_with_those_that_were(tmp_path):
    wd = work_dir(tmp_path, test={'rmse': 0.5, 'abs_rel': 0.1})
    text, compared = compare(ledger(), [wd])
    assert not compared
    assert f"{wd}: r1: no 'mIoU' in the metrics of tools/test.py 20250102_000000" in text
    assert '(logged: rmse, abs_rel)' in text


def test_a_dump_that_differs_from_the_rows_protocol_is_named(tmp_path):
    wd = work_dir(tmp_path, [validation(30, 38.75)], dump=DUMP.replace('0.1', '0.5'))
    text, compared = compare(ledger(), [wd])
    assert not compared
    assert '38.75' in text  # still compared, and flagged
    assert f'protocol differs: r1: lr = 0.5 in {wd / "seg_x.py"}, ledger says 0.1' in text


def test_a_row_without_a_published_value_shows_the_measured_one(tmp_path):
    wd = work_dir(tmp_path, test={'rmse': 0.41234})
    text, compared = compare(ledger(row(metric='RMSE', value='not found')), [wd])
    assert compared, text
    assert cells(text.splitlines()[1])[2:6] == ['RMSE', 'not found', '0.4123', '-']


def test_every_metric_the_schema_allows_has_its_logged_name():
    schema = yaml.safe_load(SCHEMA.read_text())
    assert set(schema['definitions']['row']['keys']['metric']['enum']) == set(LEDGER_METRICS)


def test_the_dump_of_a_ledger_config_holds_every_protocol_field_of_its_row(tmp_path):
    """What mmengine's Runner dumps (Config.dump) reads back with the row's published values."""
    ledger = load_ledger()
    row = next(r for r in ledger['rows'] if r['id'] == 'mae-ade20k-upernet-vitb16')
    wd = work_dir(tmp_path, test={'aAcc': 80.0, 'mIoU': 47.5, 'mAcc': 60.0})
    (wd / 'seg_x.py').unlink()
    Config.fromfile(ROOT / row['config']).dump(wd / Path(row['config']).name)
    text, compared = compare(ledger, [wd])
    assert compared, text
    assert cells(text.splitlines()[1])[:5] == [
        'work',
        row['id'],
        'mIoU',
        f'{row["value"]:.2f}',
        '47.50',
    ]


def nyu_row(ledger):
    return next(
        r for r in ledger['rows'] if r['metric'] == 'RMSE' and r['config'].startswith('configs/nyu')
    )


def run_of(tmp_path, row, options):
    """A tools/test.py run of the row's config with ``options``: its dump and result."""
    wd = work_dir(tmp_path, test={'rmse': 0.41, 'abs_rel': 0.1})
    (wd / 'seg_x.py').unlink()
    cfg = Config.fromfile(ROOT / row['config'])
    cfg.merge_from_dict(options)
    cfg.dump(wd / Path(row['config']).name)
    return wd


def test_a_run_on_other_data_or_a_subset_is_not_claimed_for_the_row(tmp_path):
    """test.py with data_root=data/demo/nyu test_dataloader.dataset.indices=2 was printed as
    'measured' for the NYU row."""
    ledger = load_ledger()
    row = nyu_row(ledger)
    options = {'test_dataloader.dataset.data_root': 'data/demo/nyu'}
    options['test_dataloader.dataset.indices'] = 2
    wd = run_of(tmp_path, row, options)
    text, compared = compare(ledger, [wd])
    assert not compared
    assert 'no run matched a ledger row' in text
    [line] = [line for line in text.splitlines() if row['id'] in line]
    assert line.startswith(f'{wd}: {row["id"]}: not comparable: the run evaluated other data ')
    assert "test_dataloader.dataset.data_root = 'data/demo/nyu', the row's config: " in line
    assert "test_dataloader.dataset.indices = 2, the row's config: '<absent>'" in line


def test_a_run_on_the_rows_data_is_compared(tmp_path):
    ledger = load_ledger()
    row = nyu_row(ledger)
    wd = run_of(tmp_path, row, {'test_dataloader.batch_size': 1})
    text, _ = compare(ledger, [wd])
    assert 'not comparable' not in text
    assert cells(text.splitlines()[1])[:2] == ['work', row['id']]


DEMO_TRAINING = {
    'train_dataloader.dataset.data_root': 'data/demo/nyu',
    'train_dataloader.dataset.indices': 4,
}


def training_run(wd, row, options, end):
    """A training run of the row's config with ``options`` in ``wd``: the config mmengine
    records in the run's folder, a training record and the validation at the end."""
    cfg = Config.fromfile(ROOT / row['config'])
    cfg.merge_from_dict(options)
    run = wd / '20250101_000000' / 'vis_data'
    cfg.dump(run / 'config.py')
    records = [train(end), {'rmse': 0.4, 'abs_rel': 0.1, 'step': end}]
    (run / 'scalars.json').write_text(''.join(json.dumps(r) + '\n' for r in records))
    return cfg


def test_a_run_trained_on_other_data_is_not_claimed_for_the_row(tmp_path):
    """Trained on the demo data, validated on the row's split: printed as 'measured' when only
    the evaluated split was compared."""
    ledger = load_ledger()
    row = nyu_row(ledger)
    wd = run_of(tmp_path, row, {})
    (wd / '20250102_000000' / '20250102_000000.json').unlink()  # the validation counts
    cfg = training_run(
        wd, row, DEMO_TRAINING, end=Config.fromfile(ROOT / row['config']).train_cfg.max_iters
    )
    cfg.dump(wd / Path(row['config']).name)
    text, compared = compare(ledger, [wd])
    assert not compared and 'no run matched a ledger row' in text
    [line] = [line for line in text.splitlines() if row['id'] in line]
    assert line.startswith(f'{wd}: {row["id"]}: not comparable: the run was trained on other data ')
    assert "train_dataloader.dataset.data_root = 'data/demo/nyu', the row's config: " in line
    assert "train_dataloader.dataset.indices = 4, the row's config: '<absent>'" in line


def test_a_tested_checkpoint_is_judged_by_the_training_run_of_its_work_dir(tmp_path):
    """tools/test.py dumps the test config over the training one: the training data is read
    from the config the training run recorded."""
    ledger = load_ledger()
    row = nyu_row(ledger)
    wd = run_of(tmp_path, row, {})
    training_run(wd, row, DEMO_TRAINING, end=10)
    text, compared = compare(ledger, [wd])
    assert not compared and 'the run was trained on other data' in text
    training_run(wd, row, {'train_dataloader.batch_size': 1}, end=10)
    text, compared = compare(ledger, [wd])
    assert 'not comparable' not in text
    assert cells(text.splitlines()[1])[:2] == ['work', row['id']]
