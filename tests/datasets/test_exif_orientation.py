"""An image with an EXIF orientation tag is loaded in its stored pixel order, as its label map,
depth map and COCO annotations are: a phone photo's label stays aligned with its pixels."""

import logging
import re

import numpy as np
import pytest
from mmengine.config import Config
from mmengine.logging import MMLogger
from mmseg.registry import TRANSFORMS
from PIL import Image

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT
from vitspec.datasets import LoadDepthPNG, image_orientation
from vitspec.datasets.file_checks import SampleChecks, check_image, check_sample
from vitspec.errors import DataFileError

ADE = ROOT / 'configs/_base_/datasets/ade20k_512x512.py'

ROTATE_180, ROTATE_90 = 3, 6
H, W = 40, 60


def config_image_loader(**options):
    """The image loader of the configs' pipelines (mmcv's LoadImageFromFile, stored order)."""
    return TRANSFORMS.build(dict(Config.fromfile(ADE).load_image, **options))


def config_annotation_loader(**options):
    return TRANSFORMS.build(dict(Config.fromfile(ADE).load_annotations, **options))


def write_photo(path, orientation):
    """A 60x40 JPEG, bright on its stored left half, tagged with ``orientation``."""
    pixels = np.zeros((H, W, 3), np.uint8)
    pixels[:, : W // 2] = 255
    exif = Image.Exif()
    exif[image_orientation.ORIENTATION_TAG] = orientation
    Image.fromarray(pixels).save(path, exif=exif.tobytes())
    return str(path)


def halves_label(path, orientation=None):
    """Class 1 on the stored left half, class 2 on the right; a PNG tagged with
    ``orientation`` if given (as an app may copy its photo's EXIF)."""
    label = np.full((H, W), 2, np.uint8)
    label[:, : W // 2] = 1
    exif = Image.Exif()
    if orientation:
        exif[image_orientation.ORIENTATION_TAG] = orientation
    Image.fromarray(label).save(path, exif=exif.tobytes())
    return str(path)


@pytest.mark.parametrize('label_tagged', [False, True], ids=['label', 'tagged-label'])
@pytest.mark.parametrize('backend', ['cv2', 'pillow'])
@pytest.mark.parametrize('orientation', [ROTATE_180, ROTATE_90], ids=['180', '90'])
def test_label_stays_aligned_with_a_tagged_photo(tmp_path, orientation, backend, label_tagged):
    label_tag = orientation if label_tagged else None
    results = dict(
        img_path=write_photo(tmp_path / 'photo.jpg', orientation),
        seg_map_path=halves_label(tmp_path / 'photo.png', label_tag),
        reduce_zero_label=False,
        seg_fields=[],
    )
    check_sample(results, SampleChecks(num_classes=3, imdecode_backend=backend))
    results = config_image_loader(imdecode_backend=backend)(results)
    results = config_annotation_loader(reduce_zero_label=False)(results)
    img, label = results['img'], results['gt_seg_map']
    assert img.shape[:2] == label.shape == (H, W)
    assert img[label == 1].mean() > 200 and img[label == 2].mean() < 50


def test_depth_map_stays_aligned_with_a_tagged_photo(tmp_path):
    depth = np.zeros((H, W), np.uint16)
    depth[:, : W // 2] = 2000
    Image.fromarray(depth).save(tmp_path / 'depth.png')
    results = dict(
        img_path=write_photo(tmp_path / 'photo.jpg', ROTATE_90),
        depth_map_path=str(tmp_path / 'depth.png'),
    )
    check_sample(results, SampleChecks(depth_scale=1000))
    results = LoadDepthPNG(depth_scale=1000)(config_image_loader()(results))
    measured = results['gt_depth_map'] > 0
    assert results['img'][measured].mean() > 200 and results['img'][~measured].mean() < 50


@pytest.fixture
def warnings_logged(monkeypatch):
    monkeypatch.setattr(image_orientation, '_reported', False)
    records = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = records.append
    logger = MMLogger.get_current_instance()
    logger.addHandler(handler)
    yield records
    logger.removeHandler(handler)


def test_tagged_photo_is_reported_once(tmp_path, warnings_logged):
    first = write_photo(tmp_path / 'first.jpg', ROTATE_90)
    second = write_photo(tmp_path / 'second.jpg', ROTATE_180)
    for path in (first, second, first):
        check_image(path, SampleChecks())
    messages = [r.getMessage() for r in warnings_logged]
    assert len(messages) == 1, messages
    assert f'image {first} has EXIF orientation 6' in messages[0]
    assert 'stored pixel order' in messages[0]


def test_untagged_photo_is_not_reported(tmp_path, warnings_logged):
    path = write_photo(tmp_path / 'plain.jpg', 1)
    check_image(path, SampleChecks())
    assert not warnings_logged


def test_image_of_another_size_than_its_coco_annotation(tmp_path):
    path = write_photo(tmp_path / 'photo.jpg', ROTATE_90)
    assert check_sample(dict(img_path=path, width=W, height=H), SampleChecks()).image_hw == (H, W)
    with pytest.raises(
        DataFileError,
        match=re.escape(f'image {path} is {W}x{H} but its annotation says {H}x{W}'),
    ):
        check_sample(dict(img_path=path, width=H, height=W), SampleChecks())


def test_a_png_s_tag_is_read_without_decoding_untagged_pngs(tmp_path, monkeypatch):
    tagged = write_photo(tmp_path / 'tagged.png', ROTATE_90)
    plain = tmp_path / 'plain.png'
    Image.fromarray(np.zeros((H, W, 3), np.uint8)).save(plain)
    assert image_orientation.orientation_tag(open(tagged, 'rb').read()) == ROTATE_90
    opened = []
    monkeypatch.setattr(image_orientation.Image, 'open', lambda *a: opened.append(a))
    assert image_orientation.orientation_tag(plain.read_bytes()) == 1
    assert opened == []
