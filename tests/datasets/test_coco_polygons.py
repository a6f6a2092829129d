"""COCO polygons under 3 points: mmdet's LoadAnnotations ignores an instance left without a
polygon, box included. They are counted and named; a training set that would lose more than
``max_lost_mask_share`` (1 %) of its annotations stops."""

import logging

import pytest
from mmengine.config import Config

import vitspec.datasets.checked_coco as checked_coco
from tests.datasets.test_checked_coco import DEMO, build_dataset, rewrite_annotations, write_coco
from tests.utils import ROOT
from vitspec.datasets.checked_coco import unusable_polygons
from vitspec.errors import DataFileError

LINE = [[10, 10, 50, 10]]  # a polygon of 2 points


def set_segmentation(ann_ids, segmentation):
    def change(content):
        for ann in content['annotations']:
            if ann['id'] in ann_ids:
                ann['segmentation'] = segmentation

    return change


def logs(monkeypatch) -> list:
    logged = []
    monkeypatch.setattr(checked_coco, 'print_log', lambda msg, **kw: logged.append((msg, kw)))
    return logged


def hundred_boxes(root):
    write_coco(root, {'a.jpg': [[10, 10, 40, 40]] * 60, 'b.jpg': [[5, 5, 20, 20]] * 40})


def test_unusable_polygons_as_mmdet_counts_them():
    assert unusable_polygons([[0, 0, 1, 0, 1, 1]]) == 0
    assert unusable_polygons([[0, 0, 1, 0], [0, 0, 1, 0, 1, 1, 2]]) == 2  # 2 points; odd
    assert unusable_polygons(dict(counts='x', size=[4, 4])) == 0  # RLE


def test_one_percent_of_lost_masks_is_named_in_a_warning(tmp_path, monkeypatch):
    logged = logs(monkeypatch)
    hundred_boxes(tmp_path)
    rewrite_annotations(tmp_path, set_segmentation({7}, LINE))
    dataset = build_dataset(tmp_path)
    [(message, kw)] = logged
    assert kw['level'] == logging.WARNING
    assert message.startswith(f'{tmp_path}/ann.json: 1 of 100 annotations have no usable polygon')
    assert 'a.jpg (annotation 7, polygons: 2 points)' in message
    assert dataset[0]['data_samples'].ignored_instances.bboxes.shape[0] == 1  # as mmdet does


def test_a_training_set_losing_more_stops(tmp_path, monkeypatch):
    logs(monkeypatch)
    hundred_boxes(tmp_path)
    rewrite_annotations(tmp_path, set_segmentation({3, 70}, LINE))
    with pytest.raises(DataFileError, match=r'2 of 100 annotations .* more than 1% of the train'):
        build_dataset(tmp_path)
    assert len(build_dataset(tmp_path, 'val')) == 2  # evaluation: a warning only


def test_the_share_is_a_dataset_option(tmp_path, monkeypatch):
    logs(monkeypatch)
    hundred_boxes(tmp_path)
    rewrite_annotations(tmp_path, set_segmentation({3, 70}, LINE))
    assert len(build_dataset(tmp_path, max_lost_mask_share=0.05)) == 2


def test_a_short_polygon_beside_a_good_one_is_counted(tmp_path, monkeypatch):
    logged = logs(monkeypatch)
    hundred_boxes(tmp_path)
    rewrite_annotations(tmp_path, set_segmentation({3}, [*LINE, [10, 10, 50, 10, 50, 50]]))
    build_dataset(tmp_path)
    assert [m for m, _ in logged] == [
        f'{tmp_path}/ann.json: 1 polygons under 3 points or of an odd number of coordinates are '
        'left out of masks that have other polygons'
    ]


def test_polygons_do_not_matter_without_masks(tmp_path, monkeypatch):
    logged = logs(monkeypatch)
    hundred_boxes(tmp_path)
    rewrite_annotations(tmp_path, set_segmentation(set(range(1, 101)), LINE))
    pipeline = Config.fromfile(ROOT / DEMO).train_dataloader.dataset.pipeline
    for transform in pipeline:
        if transform['type'] == 'LoadAnnotations':
            transform['with_mask'] = False
    assert len(build_dataset(tmp_path, pipeline=pipeline)) == 2
    assert logged == []


def test_an_odd_coordinate_count_is_named_as_such_with_what_to_do(tmp_path, monkeypatch):
    """It said 'no polygon of 3 or more points' of a polygon of 3.5 points."""
    logs(monkeypatch)
    hundred_boxes(tmp_path)
    odd = [[10, 10, 50, 10, 50, 50, 10]]
    rewrite_annotations(tmp_path, set_segmentation({3, 70}, odd))
    with pytest.raises(DataFileError) as raised:
        build_dataset(tmp_path)
    message = str(raised.value)
    assert 'a.jpg (annotation 3, polygons: 7 coordinates, an odd number)' in message
    assert 'no polygon of 3 or more points' not in message
    assert 'Write each polygon as x, y pairs of 3 or more points' in message
    assert "raise the dataset's max_lost_mask_share" in message
