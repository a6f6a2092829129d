"""Bad files in a dataset stop the configs' real pipelines with an error that names the file."""

import re
import shutil

import numpy as np
import pytest
from mmengine.config import Config
from mmengine.registry import DefaultScope
from mmseg.registry import DATASETS
from PIL import Image

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT, make_demo_data, run_tool
from vitspec.datasets import CheckedLoadAnnotations
from vitspec.errors import DataFileError

ADE = ROOT / 'configs/ade20k/linear_vit-s14-dinov2_bnhead_8xb2-40k_ade20k-512x512.py'


@pytest.fixture(scope='module')
def ade_demo(tmp_path_factory):
    return make_demo_data(tmp_path_factory.mktemp('demo'), 'ade20k', 2, 1)


@pytest.fixture
def ade_root(ade_demo, tmp_path):
    """A copy of its own for each test, which breaks files in it."""
    return shutil.copytree(ade_demo, tmp_path / ade_demo.name)


def first_train_sample(root):
    """(dataset built from the ADE20K config's train split, image path, label path)"""
    cfg = Config.fromfile(ADE)
    cfg.train_dataloader.dataset.data_root = str(root)
    with DefaultScope.overwrite_default_scope('mmseg'):
        dataset = DATASETS.build(cfg.train_dataloader.dataset)
    info = dataset.get_data_info(0)
    return dataset, info['img_path'], info['seg_map_path']


def load(dataset):
    with DefaultScope.overwrite_default_scope('mmseg'):
        return dataset[0]


def test_good_sample_loads(ade_root):
    dataset, _, _ = first_train_sample(ade_root)
    assert load(dataset)['inputs'].shape[0] == 3


@pytest.mark.parametrize('value, dtype', [(151, np.uint8), (300, np.uint16)])
def test_label_outside_class_range(ade_root, value, dtype):
    dataset, _, label = first_train_sample(ade_root)
    seg = np.asarray(Image.open(label)).astype(dtype)
    seg[:4, :4] = value  # uint16: mmseg's uint8 cast would turn 300 into a valid 44
    Image.fromarray(seg).save(label)
    expected = rf'{re.escape(label)} has label values \[{value}\] outside 0\.\.150'
    with pytest.raises(DataFileError, match=expected):
        load(dataset)


def test_missing_annotation(ade_root):
    dataset, image, label = first_train_sample(ade_root)
    (ade_root / label).unlink()
    expected = re.escape(f'annotation not found: {label} (image: {image})')
    with pytest.raises(DataFileError, match=expected):
        load(dataset)


def test_undecodable_image(ade_root):
    dataset, image, _ = first_train_sample(ade_root)
    with open(image, 'r+b') as f:
        f.write(b'not a jpeg' * 10)
    with pytest.raises(DataFileError, match=re.escape(f'cannot decode image {image}')):
        load(dataset)


def test_cityscapes_range_excludes_class_19_but_keeps_ignore():
    check = CheckedLoadAnnotations(num_classes=19, reduce_zero_label=False)
    check.check_labels(np.array([[0, 18, 255]]), 'ok.png', reduce_zero_label=False)
    with pytest.raises(DataFileError, match=r'bad\.png has label values \[19\] outside 0\.\.18'):
        check.check_labels(np.array([[0, 19, 255]]), 'bad.png', reduce_zero_label=False)


def test_label_of_the_wrong_size(ade_root):
    dataset, image, label = first_train_sample(ade_root)
    seg = np.asarray(Image.open(label))
    Image.fromarray(seg[:-3]).save(label)
    with pytest.raises(
        DataFileError,
        match=rf'annotation {re.escape(label)} is \d+x\d+ but its '
        rf'image {re.escape(image)} is',
    ):
        load(dataset)


def test_truncated_label_png(ade_root):
    dataset, _, label = first_train_sample(ade_root)
    data = open(label, 'rb').read()
    open(label, 'wb').write(data[: len(data) // 2])
    with pytest.raises(DataFileError, match=re.escape(label)):
        load(dataset)


@pytest.mark.slow
def test_empty_dataset_directory_is_named(tmp_path):
    root = tmp_path / 'ADEChallengeData2016'
    for sub in (
        'images/training',
        'annotations/training',
        'images/validation',
        'annotations/validation',
    ):
        (root / sub).mkdir(parents=True)
    config = ROOT / 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
    proc = run_tool(
        [
            'tools/train.py',
            config,
            '--work-dir',
            tmp_path / 'w',
            '--cfg-options',
            f'train_dataloader.dataset.data_root={root}',
            f'val_dataloader.dataset.data_root={root}',
        ],
        check=False,
        timeout=300,
    )
    assert proc.returncode != 0
    assert f"a dataset is empty: no samples found under {{'train': '{root}'" in proc.stderr


def replace_image(path, height, width):
    Image.fromarray(np.zeros((height, width, 3), np.uint8)).save(path)


@pytest.mark.parametrize(
    'height, width, reason',
    [
        (1, 300, 'a side is shorter than 3 pixels'),  # cv2's resize failed on it
        (300, 1, 'a side is shorter than 3 pixels'),
        (2, 2, 'a side is shorter than 3 pixels'),
        (4, 300, 'its aspect ratio exceeds 64'),  # the same, resized to a 0-pixel side
    ],
)
def test_degenerate_image_is_named_with_its_size(ade_root, height, width, reason):
    dataset, image, _ = first_train_sample(ade_root)
    replace_image(image, height, width)
    expected = f'image {image} is {width}x{height}: {reason}'
    with pytest.raises(DataFileError, match=re.escape(expected)):
        load(dataset)


def test_smallest_image_loads(ade_root):
    dataset, image, label = first_train_sample(ade_root)
    replace_image(image, 3, 192)
    Image.fromarray(np.ones((3, 192), np.uint8)).save(label)
    assert load(dataset)['inputs'].shape[0] == 3


@pytest.mark.parametrize('height, width', [(1, 1), (1, 7)])
def test_tiny_label_is_named_with_both_sizes(ade_root, height, width):
    dataset, image, label = first_train_sample(ade_root)
    image_w, image_h = Image.open(image).size
    Image.fromarray(np.ones((height, width), np.uint8)).save(label)
    expected = (
        f'annotation {label} is {width}x{height} but its image {image} is {image_w}x{image_h}'
    )
    with pytest.raises(DataFileError, match=re.escape(expected)):
        load(dataset)
