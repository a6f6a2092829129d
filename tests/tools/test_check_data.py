"""tools/check_data.py and tools/train.py --check-data: a clean set passes with exit status 0,
a damaged one exits 1 with every bad file named, and training stops before its Runner is built."""

import json
import shutil

import numpy as np
import pytest
from PIL import Image

from tests.utils import ROOT, make_demo_data, run_tool
from tools import check_data as check_tool
from tools import train as train_tool

ADE = ROOT / 'configs/ade20k/linear_vit-s14-dinov2_bnhead_8xb2-40k_ade20k-512x512.py'
DEMO = ROOT / 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'


@pytest.fixture(autouse=True)
def check_record_cache(tmp_path, monkeypatch):
    """Check records go to a folder of the test, never the user's cache."""
    monkeypatch.setenv('VITSPEC_CACHE', str(tmp_path / 'vitspec-cache'))


def damage_labels(labels, missing):
    """A label value beyond ADE20K's 150 classes in the first label; ``missing`` deleted.
    Returns the names the report must give."""
    first = sorted(labels.glob('*.png'))[0]
    label = np.asarray(Image.open(first)).copy()
    label[0, 0] = 201
    Image.fromarray(label).save(first)
    (labels / missing).unlink()
    return {first.name: 'label values [201]', missing: 'annotation not found'}


@pytest.fixture
def damaged_ade(realdata, tmp_path):
    root = tmp_path / 'ADEChallengeData2016'
    shutil.copytree(realdata / 'ade20k/ADEChallengeData2016', root)
    return root, damage_labels(root / 'annotations/validation', 'ADE_val_00000003.png')


def run_check(capsys, *argv):
    status = check_tool.main([*map(str, argv), '--no-progress'])
    return status, capsys.readouterr().out


def test_clean_real_sample_exits_0(realdata, capsys, tmp_path):
    root = realdata / 'ade20k/ADEChallengeData2016'
    status, out = run_check(capsys, ADE, '--cfg-options', f'data_root={root}', '--split', 'val')
    assert status == 0 and 'val: 3 samples, 3 ok, 0 bad' in out
    assert 'all samples passed' in out and 'check record' in out
    assert str(tmp_path / 'vitspec-cache') in out


def test_damaged_set_exits_1_naming_every_bad_file(damaged_ade, capsys, tmp_path):
    root, damage = damaged_ade
    report = tmp_path / 'report.json'
    argv = [ADE, '--cfg-options', f'data_root={root}', '--jobs', '2', '--out', report]
    status, out = run_check(capsys, *argv)
    assert status == 1 and 'val: 3 samples, 1 ok, 2 bad' in out
    assert 'test: the same dataset as val' in out
    assert 'train: 0 samples' in out and 'images/training' in out  # the copy has no train split
    for name, reason in damage.items():
        assert any(name in line and reason in line for line in out.splitlines()), name
    written = json.loads(report.read_text())
    assert written['clean'] is False
    val = next(s for s in written['splits'] if s['split'] == 'val')
    assert len(val['bad']) == 2 and val['ok'] == 1 and sum(val['histogram'].values()) > 0


def test_an_existing_report_is_not_replaced(realdata, tmp_path):
    report = tmp_path / 'report.json'
    report.write_text('{}')
    with pytest.raises(SystemExit) as stop:
        check_tool.main([str(ADE), '--out', str(report)])
    assert stop.value.code == 2 and report.read_text() == '{}'


def test_train_check_data_stops_before_the_runner(tmp_path, capsys, monkeypatch):
    root = make_demo_data(tmp_path / 'data', 'ade20k', num_train=3, num_val=2)
    damage = damage_labels(root / 'annotations/training', 'ADE_train_00000002.png')

    def no_runner(cfg):
        raise AssertionError('the Runner was built')

    monkeypatch.setattr(train_tool, 'build_runner', no_runner)
    work = tmp_path / 'work'
    with pytest.raises(SystemExit) as stop:
        train_tool.main([str(DEMO), '--check-data', '--work-dir', str(work), '--cfg-options',
                         f'data_root={root}'])  # fmt: skip
    out = capsys.readouterr().out
    assert stop.value.code == 1 and 'bad files found' in out
    assert all(name in out for name in damage) and not work.exists()


@pytest.mark.slow
def test_command_lines(damaged_ade, tmp_path):
    """As a user runs them: the check of a damaged copy fails, and a clean demo set is checked,
    then trained."""
    root, damage = damaged_ade
    args = ['tools/check_data.py', ADE, '--split', 'val', '--cfg-options', f'data_root={root}']
    proc = run_tool(args, check=False)
    assert proc.returncode == 1 and all(name in proc.stdout for name in damage)

    demo = make_demo_data(tmp_path / 'data', 'ade20k', num_train=2, num_val=1)
    options = [f'data_root={demo}', 'train_cfg.max_iters=1', 'train_cfg.val_interval=2']
    work = tmp_path / 'work'
    args = ['tools/train.py', DEMO, '--check-data', '--work-dir', work, '--cfg-options', *options]
    proc = run_tool(args)
    assert 'train: 2 samples, 2 ok, 0 bad' in proc.stdout and 'all samples passed' in proc.stdout
    assert (work / 'iter_1.pth').is_file()
