"""End to end on the demo NYU-layout data: 2-process CPU training, then testing with depth
pictures written by --show-dir; the trained model must clearly beat the mean depth."""

import json
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.utils import make_demo_data, run_tool
from vitspec.evaluation.depth_errors import image_errors

CONFIG = 'configs/demo/lin4_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py'


@pytest.fixture(scope='module')
def demo_nyu(tmp_path_factory) -> Path:
    return make_demo_data(tmp_path_factory.mktemp('demo'), 'nyu', 64, 16)


def read_depths(folder: Path) -> list:
    return [
        np.asarray(Image.open(p)).astype(np.float64) / 1000 for p in sorted(folder.glob('*.png'))
    ]


def mean_depth_rmse(root: Path) -> float:
    """RMSE (per image, Eigen crop, as the metric) of predicting the mean training depth."""
    train = read_depths(root / 'annotations' / 'train')
    mean = np.concatenate([d[d > 0] for d in train]).mean()
    errors = [
        image_errors(np.full_like(d, mean), d, 1e-3, 10.0, 'nyu_eigen')
        for d in read_depths(root / 'annotations' / 'test')
    ]
    return float(np.mean([e['rmse'] for e in errors if e is not None]))


def test_dist_train_beats_mean_depth_and_saves_depth_pictures(demo_nyu, tmp_path):
    roots = [
        f'{split}.dataset.data_root={demo_nyu}'
        for split in ('train_dataloader', 'val_dataloader', 'test_dataloader')
    ]
    work = tmp_path / 'work'
    run_tool(
        [
            'tools/dist_train.sh',
            CONFIG,
            2,
            '--work-dir',
            work,
            '--cfg-options',
            *roots,
            'train_cfg.val_interval=1000',
        ]
    )  # evaluated below, by tools/test.py
    ckpt = work / 'iter_100.pth'
    assert ckpt.is_file()

    show = tmp_path / 'show'
    proc = run_tool(
        [
            'tools/test.py',
            CONFIG,
            ckpt,
            '--work-dir',
            tmp_path / 'test',
            '--show-dir',
            show,
            '--cfg-options',
            *roots,
        ]
    )
    line = re.search(r'^vitspec-metrics (.*)$', proc.stdout, re.M)
    assert line, proc.stdout[-3000:]
    rmse = json.loads(line.group(1))['rmse']
    baseline = mean_depth_rmse(demo_nyu)
    assert rmse < 0.75 * baseline, f'RMSE {rmse:.3f} vs mean-depth baseline {baseline:.3f}'

    pictures = sorted(show.rglob('*.png'))
    assert len(pictures) == 16, pictures[:3]
    picture = np.asarray(Image.open(pictures[0]))
    assert picture.shape[-1] == 3 and picture.shape[0] >= 2 * 120  # image above its depth map
    print(f'demo depth: RMSE {rmse:.3f}, mean-depth baseline {baseline:.3f}')
