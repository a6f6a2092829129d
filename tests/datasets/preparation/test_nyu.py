"""NYU: the real mmseg sample, laid out as the Toolbox's NYU archive unpacks (scene folders of
rgb_/sync_depth_ pairs beside nyu_train.txt / nyu_test.txt), becomes the layout the configs'
NYUDataset reads; damaged pairs are refused and named by their list line; SRC is unchanged and a
second run writes nothing."""

import hashlib
import os
import shutil

import numpy as np
import pytest
from mmengine.config import Config
from mmengine.registry import DefaultScope
from mmseg.registry import DATASETS
from PIL import Image

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT
from tools.prepare_data import main as prepare_data
from vitspec.datasets.preparation import nyu
from vitspec.datasets.preparation.output_tree import OutputTree
from vitspec.datasets.preparation.report import KEPT, LINKED
from vitspec.errors import DataFileError

CONFIG = ROOT / 'configs/nyu/lin4_vit-s14-dinov2_8xb2-38k_nyu-416x544.py'
TRAIN = '/bookstore_0001d/rgb_00001.jpg /bookstore_0001d/sync_depth_00001.png 518.8579\n'
TEST = 'bathroom/rgb_00045.jpg bathroom/sync_depth_00045.png 518.8579\n'


def add_pair(src, realdata, scene, index):
    (src / scene).mkdir(parents=True, exist_ok=True)
    shutil.copy(realdata / 'nyu/images/bookstore_0001d_00001.jpg', src / scene / f'rgb_{index}.jpg')
    depth = realdata / 'nyu/annotations/bookstore_0001d_00001.png'
    shutil.copy(depth, src / scene / f'sync_depth_{index}.png')


@pytest.fixture
def src(tmp_path, realdata):
    """The archive's layout, with the Toolbox's list formats (leading slashes in the train list)."""
    root = tmp_path / 'nyu_src'
    add_pair(root, realdata, 'bookstore_0001d', '00001')
    add_pair(root, realdata, 'bathroom', '00045')
    (root / 'nyu_train.txt').write_text(TRAIN)
    (root / 'nyu_test.txt').write_text(TEST)
    return root


def tree_digest(root) -> str:
    """Names, link targets and bytes of everything under ``root``."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob('*')):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_symlink():
            digest.update(os.readlink(path).encode())
        elif path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def run(src, out, **kwargs):
    tree = OutputTree(src, out, progress=False)
    nyu.prepare(src, tree, **kwargs)
    return tree.report


def dataset(out, split):
    cfg = Config.fromfile(CONFIG)
    ds = cfg[f'{split}_dataloader'].dataset
    ds.data_root = str(out)
    with DefaultScope.overwrite_default_scope('mmseg'):
        return DATASETS.build(ds)


def test_prepared_layout_is_read_by_nyudataset(src, tmp_path):
    before = tree_digest(src)
    out = tmp_path / 'nyu'
    report = run(src, out)
    assert report.ok, report.summary()
    assert report.count(LINKED) == 4
    assert tree_digest(src) == before

    train, test = dataset(out, 'train'), dataset(out, 'val')
    assert len(train) == 1 and len(test) == 1
    info = test.get_data_info(0)
    assert info['img_path'] == str(out / 'images/test/bathroom_00045.jpg')
    assert info['depth_map_path'] == str(out / 'annotations/test/bathroom_00045.png')
    assert os.readlink(info['img_path']) == str(src / 'bathroom/rgb_00045.jpg')
    assert train.get_data_info(0)['img_path'] == str(out / 'images/train/bookstore_0001d_00001.jpg')
    gt = test[0]['data_samples'].gt_depth_map.data
    assert gt.shape[-2:] == (120, 160) and float(gt.max()) == pytest.approx(10.0)


def test_second_run_writes_nothing(src, tmp_path):
    out = tmp_path / 'nyu'
    run(src, out)
    stamps = {p: p.lstat().st_mtime_ns for p in out.rglob('*')}
    report = run(src, out)
    assert report.changed == 0 and report.count(KEPT) == 4 and report.ok
    assert {p: p.lstat().st_mtime_ns for p in out.rglob('*')} == stamps


def test_damaged_pairs_are_refused_and_named_by_their_line(src, tmp_path, realdata):
    for scene in ('missing_depth', 'metres', 'truncated'):
        add_pair(src, realdata, scene, '00002')
    (src / 'missing_depth/sync_depth_00002.png').unlink()
    mm = np.asarray(Image.open(src / 'metres/sync_depth_00002.png'))
    Image.fromarray((mm // 1000).astype(np.uint16)).save(src / 'metres/sync_depth_00002.png')
    jpg = src / 'truncated/rgb_00002.jpg'
    jpg.write_bytes(jpg.read_bytes()[: jpg.stat().st_size // 2])
    lines = [f'{s}/rgb_00002.jpg {s}/sync_depth_00002.png 518.8579\n'
             for s in ('missing_depth', 'metres', 'truncated')]  # fmt: skip
    (src / 'nyu_train.txt').write_text(TRAIN + ''.join(lines))
    before = tree_digest(src)

    out = tmp_path / 'nyu'
    report = run(src, out)
    assert tree_digest(src) == before
    refused = {str(path): reason for path, reason in report.refused}
    assert len(refused) == 3 and not report.ok
    missing = refused[str(src / 'missing_depth/sync_depth_00002.png')]
    assert missing.startswith('nyu_train.txt:2 ') and 'depth map missing' in missing
    metres = refused[str(src / 'metres/rgb_00002.jpg')]
    assert metres.startswith('nyu_train.txt:3 ') and 'metres' in metres
    truncated = refused[str(src / 'truncated/rgb_00002.jpg')]
    assert truncated.startswith('nyu_train.txt:4 ') and 'decode' in truncated
    summary = report.summary()
    assert all(str(path) in summary for path in refused)
    assert len(dataset(out, 'train')) == 1  # only the good pair is there


def test_a_given_split_file_replaces_the_one_in_src(src, tmp_path, realdata):
    add_pair(src, realdata, 'kitchen_0028b', '00007')
    mine = tmp_path / 'my_test.txt'
    mine.write_text('kitchen_0028b/rgb_00007.jpg kitchen_0028b/sync_depth_00007.png 518.8579\n')
    out = tmp_path / 'nyu'
    report = run(src, out, split_files=[str(mine)])  # the split from the file name
    assert report.ok
    assert sorted(p.name for p in (out / 'images/test').iterdir()) == ['kitchen_0028b_00007.jpg']
    assert any(str(mine) in note for note in report.notes)


def test_a_file_the_list_does_not_name_is_reported(src, tmp_path):
    out = tmp_path / 'nyu'
    run(src, out)
    stray = out / 'images/test/old_00001.jpg'
    shutil.copy(src / 'bathroom/rgb_00045.jpg', stray)
    report = run(src, out)
    assert [str(p) for p, _ in report.problems] == [str(stray)]
    assert 'NYUDataset reads it too' in report.problems[0][1]


def test_no_split_list_names_where_it_looked(tmp_path, realdata):
    root = tmp_path / 'src'
    add_pair(root, realdata, 'bathroom', '00045')
    with pytest.raises(DataFileError, match='nyu_test.txt'):
        run(root, tmp_path / 'out')


def test_sample_names_follow_mmseg_converter():
    assert nyu.sample_name('bathroom/rgb_00045.jpg') == 'bathroom_00045'
    assert nyu.sample_name('living_room_0019/rgb_00111.jpg') == 'living_room_0019_00111'


def test_unit_check_is_the_configs():
    cfg = Config.fromfile(ROOT / 'configs/_base_/datasets/nyu_depth.py')
    scales = {t['depth_scale'] for t in cfg.test_pipeline if t['type'] == 'LoadDepthPNG'}
    assert scales == {nyu.CHECKS.depth_scale}
    assert tuple(cfg.depth_unit_range) == nyu.CHECKS.depth_range


def test_tool_prepares_nyu_with_a_split_file(src, tmp_path):
    mine = tmp_path / 'lists/nyu_test.txt'
    mine.parent.mkdir()
    mine.write_text(TEST)
    out = tmp_path / 'nyu'
    args = ['nyu', str(src), '--out', str(out), '--split-file', f'test={mine}', '--no-progress']
    assert prepare_data(args) == 0
    assert (out / 'images/test/bathroom_00045.jpg').is_symlink()
    assert prepare_data(args) == 0  # again: everything is there
