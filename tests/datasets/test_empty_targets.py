"""EoMT's check_empty_targets: a sample whose annotation holds one value is left out (of training
and of the score) when the option is on, kept when it is off; the file report lists it as left
out, not as an untaken file."""

import logging

import numpy as np
import pytest
from mmengine.registry import DefaultScope
from mmseg.registry import DATASETS
from PIL import Image

import vitspec  # noqa: F401  (registers)
from vitspec.datasets.empty_targets import holds_one_value
from vitspec.datasets.untaken_files import untaken_files


def write_ade(root, labels):
    (root / 'img').mkdir()
    (root / 'ann').mkdir()
    for i, label in enumerate(labels):
        Image.fromarray(np.zeros((8, 8, 3), np.uint8)).save(root / 'img' / f'{i}.jpg')
        Image.fromarray(label.astype(np.uint8)).save(root / 'ann' / f'{i}.png')


def build(root, **kwargs):
    DefaultScope.overwrite_default_scope('mmseg')
    return DATASETS.build(
        dict(
            type='EoMTADE20KDataset',
            data_root=str(root),
            data_prefix=dict(img_path='img', seg_map_path='ann'),
            pipeline=[],
            **kwargs,
        )
    )


@pytest.fixture
def three_samples(tmp_path):
    mixed = np.zeros((8, 8))
    mixed[:4] = 3
    write_ade(tmp_path, [mixed, np.full((8, 8), 5), np.zeros((8, 8))])
    return tmp_path


def test_single_value_annotations_are_left_out_when_checked(three_samples):
    dataset = build(three_samples, check_empty_targets=True)
    assert [info['img_path'].rsplit('/', 1)[-1] for info in dataset] == ['0.jpg']
    assert sorted(d['img_path'].rsplit('/', 1)[-1] for d in dataset.empty_targets) == [
        '1.jpg',
        '2.jpg',
    ]
    found = {u.what: u for u in untaken_files(dataset)}
    assert not any(u.names for u in found.values() if u.level == logging.WARNING)
    left_out = [u for u in found.values() if 'check_empty_targets' in u.what]
    assert left_out[0].level == logging.INFO and left_out[0].names == ['1.jpg', '2.jpg']


def test_every_sample_is_kept_when_not_checked(three_samples):
    assert len(build(three_samples)) == len(build(three_samples, check_empty_targets=False)) == 3


def test_holds_one_value_reads_every_band(tmp_path):
    rgb = np.zeros((4, 4, 3), np.uint8)
    rgb[0, 0, 2] = 1
    Image.fromarray(rgb).save(tmp_path / 'x.png')
    Image.fromarray(np.full((4, 4, 3), 7, np.uint8)).save(tmp_path / 'y.png')
    assert not holds_one_value(str(tmp_path / 'x.png'))
    assert holds_one_value(str(tmp_path / 'y.png'))
