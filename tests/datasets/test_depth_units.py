"""Depth PNGs in the wrong unit stop at loading with the file named; real NYU and KITTI maps
pass the check the configs set."""

import glob
import re

import numpy as np
import pytest
from mmengine.config import Config
from mmseg.registry import TRANSFORMS
from PIL import Image

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT
from vitspec.datasets.file_checks import SampleChecks, check_depth
from vitspec.errors import ConfigError, DataFileError

CONFIGS = {
    'nyu': ROOT / 'configs/_base_/datasets/nyu_depth.py',
    'kitti': ROOT / 'configs/_base_/datasets/kitti_depth.py',
}


def config_loaders(which):
    """The depth checks of the config's train and test pipelines (its CheckSampleFiles), as
    built for a run."""
    cfg = Config.fromfile(str(CONFIGS[which]))
    steps = [
        step
        for pipeline in (cfg.train_pipeline, cfg.test_pipeline)
        for step in pipeline
        if step['type'] == 'CheckSampleFiles'
    ]
    assert len(steps) == 2
    return [TRANSFORMS.build(step).checks for step in steps]


def load(checks, path):
    """The depth map in metres, after the checks of its file."""
    raw = np.asarray(Image.open(path))
    check_depth(str(path), 'image.jpg', raw.shape, checks)
    return dict(gt_depth_map=raw.astype(np.float32) / checks.depth_scale)


def write_png(path, values):
    Image.fromarray(values.astype(np.uint16)).save(path)
    return path


def scene_metres(shape, near, far, seed=0):
    """Depth in metres growing down the image, with a third of the pixels missing (0)."""
    rng = np.random.default_rng(seed)
    depth = np.linspace(near, far, shape[0])[:, None] * np.ones(shape)
    return np.where(rng.random(shape) < 0.33, 0, depth)


def test_nyu_ground_truth_in_metres_is_refused(tmp_path):
    path = write_png(tmp_path / 'bedroom_0001.png', np.rint(scene_metres((48, 64), 0.6, 9.5)))
    for loader in config_loaders('nyu'):
        with pytest.raises(DataFileError) as err:
            load(loader, path)
        msg = str(err.value)
        assert msg.startswith(f'{path}: depth after scaling by 1/1000 has median 0.00')
        assert 'expected millimetres (depth_scale=1000): a median of 0.1-10 m' in msg
        assert msg.endswith('is it stored in metres?')


def test_nyu_ground_truth_in_millimetres_loads(tmp_path):
    path = write_png(
        tmp_path / 'bedroom_0001.png', np.rint(scene_metres((48, 64), 0.6, 9.5) * 1000)
    )
    for loader in config_loaders('nyu'):
        depth = load(loader, path)['gt_depth_map']
        assert 0.6 <= depth[depth > 0].min() and depth.max() <= 9.5


def test_kitti_ground_truth_in_metres_is_refused(tmp_path):
    path = write_png(tmp_path / '0000000005.png', np.rint(scene_metres((60, 200), 4.0, 70.0)))
    for loader in config_loaders('kitti'):
        with pytest.raises(
            DataFileError,
            match=re.escape(f'{path}: depth after scaling by 1/256 has median 0.1')
            + r'.*expected 1/256 m \(depth_scale=256\): a median of 1-80 m after scaling, '
            r'nothing beyond 160 m — is it stored in metres\?',
        ):
            load(loader, path)


def test_kitti_depth_read_with_nyus_scale_is_refused(tmp_path):
    """KITTI's 1/256 m read as millimetres: far points past NYU's 20 m; no unit would make it an
    indoor scene, so the hint is the generic one."""
    path = write_png(tmp_path / 'kitti.png', np.rint(scene_metres((60, 200), 4.0, 79.0) * 256))
    loader = SampleChecks(depth_scale=1000, depth_range=(0.1, 10.0))
    with pytest.raises(
        DataFileError,
        match=r'kitti.png: .*maximum 20\.2 m .*nothing beyond 20 m — check depth_scale and the '
        'unit the PNGs were written in',
    ):
        load(loader, path)


def test_maps_without_valid_pixels_or_a_range_are_not_judged(tmp_path):
    empty = write_png(tmp_path / 'empty.png', np.zeros((8, 8)))
    checks = SampleChecks(depth_scale=1000, depth_range=(0.1, 10.0))
    assert not load(checks, empty)['gt_depth_map'].any()
    metres = write_png(tmp_path / 'metres.png', np.full((8, 8), 3))
    unchecked = SampleChecks(depth_scale=1000)
    assert load(unchecked, metres)['gt_depth_map'][0, 0] == pytest.approx(0.003)


def test_a_range_that_is_no_range_is_refused():
    with pytest.raises(ConfigError, match='depth_range .* must be'):
        SampleChecks(depth_scale=1000, depth_range=(10, 0.1))
    with pytest.raises(ConfigError, match='depth_range needs depth_scale'):
        SampleChecks(depth_range=(0.1, 10))


def test_the_real_samples_pass(realdata):
    nyu = [realdata / 'nyu/annotations/bookstore_0001d_00001.png']
    kitti = sorted(
        glob.glob(str(realdata / 'kitti/derived/*/proj_depth/velodyne_raw/image_02/*.png'))
    )
    assert len(kitti) == 7
    for which, paths in (('nyu', nyu), ('kitti', kitti)):
        for loader in config_loaders(which):
            for path in paths:
                assert load(loader, path)['gt_depth_map'].max() > 0
