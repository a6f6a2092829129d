"""KITTI: the real raw frames and their projected LiDAR depth PNGs, laid out as KITTI raw and
data_depth_annotated.zip unpack (depth under val/) with BTS's test list, become the layout the
configs' KITTIDepthDataset reads; damaged pairs are refused and named by their list line; SRC is
unchanged and a second run writes nothing."""

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
from vitspec.datasets.preparation import kitti
from vitspec.datasets.preparation.output_tree import OutputTree
from vitspec.datasets.preparation.report import KEPT, LINKED, WRITTEN

CONFIG = ROOT / 'configs/kitti/lin4_vit-s14-dinov2_8xb2-38k_kitti-352x704.py'
DRIVE = '2011_09_26_drive_0023_sync'
IMAGES = f'2011_09_26/{DRIVE}/image_02/data'
DEPTHS = f'{DRIVE}/proj_depth/groundtruth/image_02'
NO_GT = f'{IMAGES}/0000000007.png None 721.5377\n'  # a test frame without ground truth


def line(frame: int) -> str:
    return f'{IMAGES}/{frame:010d}.png {DEPTHS}/{frame:010d}.png 721.5377\n'


@pytest.fixture
def src(tmp_path, realdata):
    """Links to the real frames and depth PNGs in the native layout, and the test list."""
    kitti_real = realdata / 'kitti'
    root = tmp_path / 'kitti_src'
    (root / IMAGES).mkdir(parents=True)
    (root / 'data_depth_annotated/val' / DEPTHS).mkdir(parents=True)
    for frame in range(7):
        name = f'{frame:010d}.png'
        os.symlink(kitti_real / 'KITTI_tiny' / IMAGES / name, root / IMAGES / name)
        depth = kitti_real / f'derived/{DRIVE}/proj_depth/velodyne_raw/image_02/{name}'
        os.symlink(depth, root / 'data_depth_annotated/val' / DEPTHS / name)
    (root / 'eigen_test_files_with_gt.txt').write_text(''.join(map(line, range(7))) + NO_GT)
    return root


def tree_digest(root) -> str:
    """Names, link targets and bytes (through links) of everything under ``root``."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob('*')):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_symlink():
            digest.update(os.readlink(path).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def run(src, out, **kwargs):
    tree = OutputTree(src, out, progress=False)
    kitti.prepare(src, tree, **kwargs)
    return tree.report


def dataset(out):
    cfg = Config.fromfile(CONFIG)
    ds = cfg.val_dataloader.dataset
    ds.data_root = str(out)
    with DefaultScope.overwrite_default_scope('mmseg'):
        return DATASETS.build(ds)


def test_prepared_layout_is_read_by_the_kitti_dataset(src, tmp_path):
    before = tree_digest(src)
    out = tmp_path / 'kitti'
    report = run(src, out)
    assert report.ok, report.summary()
    assert report.count(LINKED) == 14 and report.count(WRITTEN) == 1
    assert tree_digest(src) == before
    assert (out / 'eigen_test_files.txt').read_text() == ''.join(map(line, range(7)))
    assert any('train: no split list' in note for note in report.notes)
    assert any('1 lines without ground truth' in note for note in report.notes)

    test = dataset(out)
    assert len(test) == 7
    info = test.get_data_info(5)
    assert info['img_path'] == str(out / 'raw' / IMAGES / '0000000005.png')
    assert info['depth_map_path'] == str(out / 'data_depth_annotated' / DEPTHS / '0000000005.png')
    assert os.path.samefile(info['img_path'], src / IMAGES / '0000000005.png')
    sample = test[5]['data_samples']
    assert sample.gt_depth_map.data.shape[-2:] == (352, 1216)  # KB crop of 375x1242


def test_second_run_writes_nothing(src, tmp_path):
    out = tmp_path / 'kitti'
    run(src, out)
    stamps = {p: p.lstat().st_mtime_ns for p in out.rglob('*')}
    report = run(src, out)
    assert report.changed == 0 and report.count(KEPT) == 15 and report.ok
    assert {p: p.lstat().st_mtime_ns for p in out.rglob('*')} == stamps


def test_damaged_pairs_are_refused_and_named_by_their_line(src, tmp_path):
    (src / 'data_depth_annotated/val' / DEPTHS / '0000000001.png').unlink()
    metres = src / 'data_depth_annotated/val' / DEPTHS / '0000000002.png'
    raw = np.asarray(Image.open(metres))
    metres.unlink()
    Image.fromarray((raw // 256).astype(np.uint16)).save(metres)
    truncated = src / IMAGES / '0000000003.png'
    data = truncated.read_bytes()
    truncated.unlink()
    truncated.write_bytes(data[: len(data) // 2])
    before = tree_digest(src)

    out = tmp_path / 'kitti'
    report = run(src, out)
    assert tree_digest(src) == before
    refused = {str(path): reason for path, reason in report.refused}
    assert len(refused) == 3 and not report.ok
    missing = refused[str(src / 'data_depth_annotated' / DEPTHS / '0000000001.png')]
    assert missing.startswith('eigen_test_files_with_gt.txt:2 ') and 'depth map missing' in missing
    in_metres = refused[str(src / IMAGES / '0000000002.png')]
    assert in_metres.startswith('eigen_test_files_with_gt.txt:3 ') and 'metres' in in_metres
    cut = refused[str(src / IMAGES / '0000000003.png')]
    assert cut.startswith('eigen_test_files_with_gt.txt:4 ') and 'decode' in cut
    assert all(str(path) in report.summary() for path in refused)
    written = (out / 'eigen_test_files.txt').read_text()
    assert written == ''.join(line(f) for f in (0, 4, 5, 6))
    assert len(dataset(out)) == 4


def test_train_list_given_and_depth_merged_by_hand(src, tmp_path):
    """BTS's layout after its "move train/* and val/* up" step, the list named on the command
    line as SPLIT=FILE."""
    annotated = src / 'data_depth_annotated'
    shutil.move(annotated / 'val' / DRIVE, annotated / DRIVE)
    train = tmp_path / 'frames.txt'
    train.write_text(line(0) + line(1))
    out = tmp_path / 'kitti'
    report = run(src, out, split_files=[f'train={train}'])
    assert report.ok, report.summary()
    assert (out / 'eigen_train_files.txt').read_text() == line(0) + line(1)
    assert (out / 'eigen_test_files.txt').read_text() == ''.join(map(line, range(7)))


def test_unit_check_is_the_configs():
    cfg = Config.fromfile(ROOT / 'configs/_base_/datasets/kitti_depth.py')
    scales = {t['depth_scale'] for t in cfg.test_pipeline if t['type'] == 'LoadDepthPNG'}
    assert scales == {kitti.CHECKS.depth_scale}
    assert tuple(cfg.depth_unit_range) == kitti.CHECKS.depth_range
    assert cfg.val_dataloader.dataset.ann_file == kitti.OUT_LISTS['test']
    assert cfg.train_dataloader.dataset.ann_file == kitti.OUT_LISTS['train']
    assert cfg.data_prefix == dict(img_path=kitti.IMAGE_OUT, depth_map_path=kitti.DEPTH_OUT)


def test_tool_prepares_kitti(src, tmp_path):
    out = tmp_path / 'kitti'
    args = ['kitti', str(src), '--out', str(out), '--no-progress']
    assert prepare_data(args) == 0
    assert (out / 'eigen_test_files.txt').is_file()
    assert prepare_data(args) == 0
    with pytest.raises(SystemExit, match='2'):  # argparse: cityscapes reads no split list
        prepare_data(['cityscapes', str(src), '--out', str(out), '--split-file', 'x.txt'])
