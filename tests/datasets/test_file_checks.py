"""check_sample: every file of one sample read and judged, a bad one named with the reason."""

import re

import numpy as np
import pytest
from PIL import Image

from vitspec.datasets.file_checks import SampleChecks, check_sample, sample_files
from vitspec.errors import ConfigError, DataFileError
from vitspec.fileio.panoptic_png import id2rgb

ADE = SampleChecks(num_classes=150, reduce_zero_label=True)


def write_image(path, height=8, width=12):
    Image.fromarray(np.full((height, width, 3), 90, np.uint8)).save(path)
    return str(path)


def write_label(path, label):
    Image.fromarray(label).save(path)
    return str(path)


def seg_sample(tmp_path, label=None, height=8, width=12):
    """An image and its label map (classes 1 and 2, background 0 in a corner)."""
    if label is None:
        label = np.ones((height, width), np.uint8)
        label[:, width // 2 :] = 2
        label[0, 0] = 0
    return dict(
        img_path=write_image(tmp_path / 'a.jpg', height, width),
        seg_map_path=write_label(tmp_path / 'a.png', label),
    )


def test_a_good_label_gives_its_pixels_per_class(tmp_path):
    stats = check_sample(seg_sample(tmp_path), ADE)
    assert stats.image_hw == (8, 12)
    # reduce_zero_label: values 1, 2 are classes 0, 1; the background 0 is not counted
    assert stats.class_pixels.shape == (150,)
    assert stats.class_pixels[:3].tolist() == [47, 48, 0] and stats.class_pixels.sum() == 95


def test_without_reduce_zero_label_0_is_a_class_and_ignore_is_not_counted(tmp_path):
    label = np.array([[0, 18, 255]] * 3, np.uint8)
    info = seg_sample(tmp_path, label, 3, 3)
    stats = check_sample(info, SampleChecks(num_classes=19))
    assert stats.class_pixels[[0, 18]].tolist() == [3, 3] and stats.class_pixels.sum() == 6


@pytest.mark.parametrize('value, dtype', [(151, np.uint8), (300, np.uint16)])
def test_label_outside_the_class_range(tmp_path, value, dtype):
    label = np.ones((8, 12), dtype)
    label[:4, :4] = value  # uint16: mmseg's uint8 cast would turn 300 into a valid 44
    info = seg_sample(tmp_path, label)
    expected = rf'{re.escape(info["seg_map_path"])} has label values \[{value}\] outside 0\.\.150'
    with pytest.raises(DataFileError, match=expected):
        check_sample(info, ADE)


def test_cityscapes_range_excludes_class_19_but_keeps_ignore(tmp_path):
    checks = SampleChecks(num_classes=19)
    check_sample(seg_sample(tmp_path, np.array([[0, 18, 255]] * 3, np.uint8), 3, 3), checks)
    info = seg_sample(tmp_path, np.array([[0, 19, 255]] * 3, np.uint8), 3, 3)
    with pytest.raises(DataFileError, match=r'a\.png has label values \[19\] outside 0\.\.18'):
        check_sample(info, checks)


def test_the_dataset_s_reduce_zero_label_is_the_one_applied(tmp_path):
    """mmseg's datasets put reduce_zero_label into each sample: 150 is then class 149."""
    info = seg_sample(tmp_path, np.full((3, 3), 150, np.uint8), 3, 3)
    with pytest.raises(DataFileError, match=r'\[150\] outside 0\.\.149'):
        check_sample(dict(info, reduce_zero_label=False), ADE)
    assert check_sample(info, ADE).class_pixels[149] == 9


def test_missing_annotation(tmp_path):
    info = seg_sample(tmp_path)
    (tmp_path / 'a.png').unlink()
    expected = re.escape(
        f'annotation not found: {info["seg_map_path"]} (image: {info["img_path"]})'
    )
    with pytest.raises(DataFileError, match=expected):
        check_sample(info, ADE)


def test_label_of_the_wrong_size(tmp_path):
    info = seg_sample(tmp_path)
    write_label(info['seg_map_path'], np.ones((5, 12), np.uint8))
    expected = f'annotation {info["seg_map_path"]} is 12x5 but its image {info["img_path"]} is 12x8'
    with pytest.raises(DataFileError, match=re.escape(expected)):
        check_sample(info, ADE)


def test_label_of_three_channels(tmp_path):
    info = seg_sample(tmp_path)
    Image.fromarray(np.ones((8, 12, 3), np.uint8)).save(info['seg_map_path'])
    with pytest.raises(DataFileError, match='is not a single-channel label image'):
        check_sample(info, ADE)


def test_truncated_label_png(tmp_path):
    info = seg_sample(tmp_path)
    data = open(info['seg_map_path'], 'rb').read()
    open(info['seg_map_path'], 'wb').write(data[: len(data) // 2])
    with pytest.raises(DataFileError, match=re.escape(info['seg_map_path'])):
        check_sample(info, ADE)


def test_undecodable_image(tmp_path):
    info = seg_sample(tmp_path)
    open(info['img_path'], 'wb').write(b'not a jpeg' * 10)
    with pytest.raises(DataFileError, match=re.escape(f'cannot decode image {info["img_path"]}')):
        check_sample(info, ADE)


def test_missing_image(tmp_path):
    info = seg_sample(tmp_path)
    (tmp_path / 'a.jpg').unlink()
    with pytest.raises(DataFileError, match=re.escape(f'image not found: {info["img_path"]}')):
        check_sample(info, ADE)


@pytest.mark.parametrize(
    'height, width, reason',
    [
        (1, 300, 'a side is shorter than 3 pixels'),  # cv2's resize failed on it
        (300, 1, 'a side is shorter than 3 pixels'),
        (2, 2, 'a side is shorter than 3 pixels'),
        (4, 300, 'its aspect ratio exceeds 64'),  # the same, resized to a 0-pixel side
    ],
)
def test_degenerate_image_is_named_with_its_size(tmp_path, height, width, reason):
    image = write_image(tmp_path / 'a.jpg', height, width)
    expected = f'image {image} is {width}x{height}: {reason}'
    with pytest.raises(DataFileError, match=re.escape(expected)):
        check_sample(dict(img_path=image), SampleChecks())


def test_smallest_image_passes(tmp_path):
    info = seg_sample(tmp_path, np.ones((3, 192), np.uint8), 3, 192)
    assert check_sample(info, ADE).image_hw == (3, 192)


def test_coco_sample_size_and_instance_counts(tmp_path):
    image = write_image(tmp_path / 'a.jpg', 8, 12)
    instances = [dict(bbox_label=2), dict(bbox_label=2), dict(bbox_label=0)]
    info = dict(img_path=image, width=12, height=8, instances=instances, seg_map_path=None)
    stats = check_sample(info, SampleChecks(num_classes=4))
    assert stats.class_pixels.tolist() == [1, 0, 2, 0]
    assert check_sample(info, SampleChecks()).class_pixels.tolist() == [1, 0, 2]
    with pytest.raises(DataFileError, match=re.escape(f'image {image} is 12x8 but its annotation')):
        check_sample(dict(info, width=8, height=12), SampleChecks())


def depth_sample(tmp_path, depth, size=(40, 60)):
    image = write_image(tmp_path / 'd.jpg', *size)
    Image.fromarray(depth).save(tmp_path / 'd.png')
    return dict(img_path=image, depth_map_path=str(tmp_path / 'd.png'))


NYU = SampleChecks(depth_scale=1000, depth_range=(0.1, 10.0))


def test_depth_in_millimetres_passes(tmp_path):
    info = depth_sample(tmp_path, np.full((40, 60), 2500, np.uint16))
    assert check_sample(info, NYU).class_pixels is None


@pytest.mark.parametrize(
    'depth, reason',
    [
        (np.full((40, 60), 25, np.uint8), '16-bit PNG, got uint8'),
        (np.full((20, 30), 2500, np.uint16), 'is 30x20 but its image .*d.jpg is 60x40'),
        (np.full((40, 60), 3, np.uint16), 'has median 0.003 m .* is it stored in metres'),
    ],
    ids=['8-bit', 'size', 'unit'],
)
def test_bad_depth_maps_are_named(tmp_path, depth, reason):
    info = depth_sample(tmp_path, depth)
    with pytest.raises(DataFileError, match=f'{re.escape(info["depth_map_path"])}.*{reason}'):
        check_sample(info, NYU)


def test_missing_depth_map_is_named(tmp_path):
    info = depth_sample(tmp_path, np.full((40, 60), 2500, np.uint16))
    (tmp_path / 'd.png').unlink()
    with pytest.raises(DataFileError, match='depth map not found: .*d.png'):
        check_sample(info, NYU)


def panoptic_sample(tmp_path, segment_ids=(5, 9)):
    ids = np.array([[5, 5, 9], [5, 0, 9], [5, 9, 9]])
    image = write_image(tmp_path / 'p.jpg', 3, 3)
    Image.fromarray(id2rgb(ids)).save(tmp_path / 'p.png')
    segments = [dict(id=i, category=c) for i, c in zip(segment_ids, (1, None, 0))]
    return dict(img_path=image, seg_map_path=str(tmp_path / 'p.png'), segments_info=segments)


def test_panoptic_pixels_per_class_of_the_chosen_categories(tmp_path):
    stats = check_sample(panoptic_sample(tmp_path), SampleChecks(num_classes=2))
    assert stats.class_pixels.tolist() == [0, 4]  # segment 9 is of an unchosen category


def test_panoptic_png_ids_the_json_lacks_are_named(tmp_path):
    with pytest.raises(DataFileError, match=r'p\.png has segment ids missing from the JSON: \[9\]'):
        check_sample(panoptic_sample(tmp_path, segment_ids=(5,)), SampleChecks())


def test_sample_files_and_the_settings_key():
    info = dict(img_path='a.jpg', seg_map_path='a.png', depth_map_path=None, width=3)
    assert sample_files(info) == ['a.jpg', 'a.png']
    assert ADE.key() == SampleChecks(num_classes=150, reduce_zero_label=True).key()
    assert ADE.key() != SampleChecks(num_classes=150).key()
    with pytest.raises(ConfigError, match='num_classes must be positive'):
        SampleChecks(num_classes=0)
