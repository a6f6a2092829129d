"""COCO boxes mmdet's CocoDataset drops without a word (outside their image, under 1 pixel,
area <= 0) are named in a warning, and a training set with more than ``max_outside_box_share``
(1 %) of its boxes outside their images stops; an RLE mask whose size is not its image's is an
error naming it and saying what to do (it was numpy's 'all input arrays must have the same
shape' at the first sample)."""

import logging

import numpy as np
import pycocotools.mask as mask_utils
import pytest

import vitspec.datasets.checked_coco as checked_coco
from tests.datasets.test_checked_coco import build_dataset, rewrite_annotations, write_coco
from vitspec.datasets.checked_coco import mmdet_drop_reason, rle_size_problem
from vitspec.engine.hooks.empty_dataset_check import EmptyDatasetCheckHook
from vitspec.errors import DataFileError


def logs(monkeypatch) -> list:
    logged = []
    monkeypatch.setattr(checked_coco, 'print_log', lambda msg, **kw: logged.append((msg, kw)))
    return logged


def move_boxes(ann_ids, box):
    def change(content):
        for ann in content['annotations']:
            if ann['id'] in ann_ids:
                ann['bbox'] = box

    return change


def hundred_boxes(root):
    write_coco(root, {'a.jpg': [[10, 10, 40, 40]] * 60, 'b.jpg': [[5, 5, 20, 20]] * 40})


def test_what_mmdet_drops_is_named():
    assert mmdet_drop_reason([10, 10, 5, 5], 25, 64, 64) == ''
    assert mmdet_drop_reason([60, 60, 30, 30], 900, 64, 64) == ''  # overlaps: mmdet clips it
    assert mmdet_drop_reason([70, 10, 5, 5], 25, 64, 64) == 'outside the 64x64 image'
    assert mmdet_drop_reason([-20, 10, 20, 5], 100, 64, 64) == 'outside the 64x64 image'
    assert mmdet_drop_reason([10, 10, 0.5, 5], 2.5, 64, 64) == 'under 1 pixel wide or high'
    assert mmdet_drop_reason([10, 10, 5, 5], 0, 64, 64) == 'area 0'


def test_one_box_outside_its_image_is_dropped_with_a_warning(tmp_path, monkeypatch):
    logged = logs(monkeypatch)
    hundred_boxes(tmp_path)
    rewrite_annotations(tmp_path, move_boxes({7}, [100, 10, 20, 20]))
    dataset = build_dataset(tmp_path)
    [(message, kw)] = logged
    assert kw['level'] == logging.WARNING
    assert message.startswith(
        f'{tmp_path}/ann.json: 1 of 100 annotations have a box outside their image, which mmdet '
        'drops: a.jpg (annotation 7, bbox [100, 10, 20, 20]: outside the 64x64 image)'
    )
    assert len(dataset.get_data_info(0)['instances']) == 59


def test_a_training_set_with_more_boxes_outside_stops(tmp_path, monkeypatch):
    logs(monkeypatch)
    hundred_boxes(tmp_path)
    rewrite_annotations(tmp_path, move_boxes(set(range(1, 101, 2)), [64, 64, 20, 20]))
    with pytest.raises(DataFileError) as raised:
        build_dataset(tmp_path)
    message = str(raised.value)
    assert '50 of 100 annotations have a box outside their image' in message
    assert 'Check that bbox is [x, y, width, height] in pixels of the image' in message
    assert "raise the dataset's max_outside_box_share" in message
    assert len(build_dataset(tmp_path, max_outside_box_share=0.5)) == 2
    assert len(build_dataset(tmp_path, 'val')) == 2  # evaluation: a warning only


def test_the_empty_training_set_stop_has_a_warning_to_point_at(tmp_path, monkeypatch):
    logged = logs(monkeypatch)
    hundred_boxes(tmp_path)
    rewrite_annotations(tmp_path, move_boxes(set(range(1, 101)), [-50, -50, 20, 20]))
    dataset = build_dataset(tmp_path, max_outside_box_share=1.0)
    [(message, kw)] = logged
    assert '100 of 100 annotations have a box outside their image' in message
    runner = type('Runner', (), {'train_dataloader': type('L', (), {'dataset': dataset})})
    with pytest.raises(DataFileError, match='see the WARNINGs on dropped annotations above'):
        EmptyDatasetCheckHook().before_train(runner)


def test_a_box_under_one_pixel_is_named_as_dropped(tmp_path, monkeypatch):
    logged = logs(monkeypatch)
    write_coco(tmp_path, {'a.jpg': [[10, 10, 40, 40], [10, 10, 0.5, 30]]})
    dataset = build_dataset(tmp_path)
    [(message, _)] = logged
    assert 'a.jpg (annotation 2, bbox [10, 10, 0.5, 30]: under 1 pixel wide or high)' in message
    assert len(dataset.get_data_info(0)['instances']) == 1


def rle(height, width):
    mask = np.zeros((height, width), np.uint8, order='F')
    mask[5:20, 5:20] = 1
    encoded = mask_utils.encode(mask)
    return dict(size=encoded['size'], counts=encoded['counts'].decode())


def crowd_rle(segmentation):
    def change(content):
        content['annotations'][1].update(iscrowd=1, segmentation=segmentation)

    return change


def test_rle_size_is_compared_with_the_image():
    assert rle_size_problem(rle(64, 48), 48, 64) == ''
    assert rle_size_problem([[0, 0, 1, 0, 1, 1]], 48, 64) == ''
    assert rle_size_problem(rle(32, 48), 48, 64) == (
        'RLE of size [height, width] [32, 48], the image is [64, 48]'
    )
    assert 'without a [height, width] size' in rle_size_problem(dict(counts='x'), 48, 64)


@pytest.mark.parametrize('split', ['train', 'val'])
def test_an_rle_of_another_size_is_an_error_naming_it(tmp_path, split):
    write_coco(tmp_path, {'a.jpg': [[10, 10, 40, 40], [5, 5, 20, 20]]})
    rewrite_annotations(tmp_path, crowd_rle(rle(32, 48)))
    with pytest.raises(DataFileError) as raised:
        build_dataset(tmp_path, split)
    message = str(raised.value)
    assert message.startswith(f'{tmp_path}/ann.json: 1 annotations have an RLE mask whose size')
    assert 'a.jpg (annotation 2, iscrowd 1: RLE of size [height, width] [32, 48], the image ' in (
        message
    )
    assert 'Encode each mask at its image' in message


def test_an_rle_of_the_image_size_loads(tmp_path):
    write_coco(tmp_path, {'a.jpg': [[10, 10, 40, 40], [5, 5, 20, 20]]})
    rewrite_annotations(tmp_path, crowd_rle(rle(64, 64)))
    sample = build_dataset(tmp_path)[0]['data_samples']
    assert len(sample.ignored_instances) == 1  # the crowd region, resized with the image
