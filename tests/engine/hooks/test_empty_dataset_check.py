from types import SimpleNamespace

import pytest

import vitspec.datasets.checked_coco as checked_coco
from tests.datasets.test_checked_coco import build_dataset, write_coco
from vitspec.engine import EmptyDatasetCheckHook
from vitspec.errors import DataFileError


class Empty(list):
    data_root = 'data/nowhere'
    data_prefix = dict(img_path='images/training')


def test_hook_names_the_empty_split_and_its_root():
    runner = SimpleNamespace(
        train_dataloader=SimpleNamespace(dataset=Empty()),
        val_dataloader=SimpleNamespace(dataset=Empty([1])),
    )
    EmptyDatasetCheckHook().before_val(runner)  # non-empty: fine
    with pytest.raises(
        DataFileError,
        match=r'the train dataset \(Empty\) is empty: '
        r"data/nowhere, \{'img_path': 'images/training'\}",
    ):
        EmptyDatasetCheckHook().before_train(runner)


def test_detection_training_set_without_a_usable_box_stops(tmp_path, monkeypatch):
    """Boxes of zero width are all dropped (with a warning): nothing left to learn from."""
    monkeypatch.setattr(checked_coco, 'print_log', lambda msg, **kw: None)
    write_coco(tmp_path, {'a.jpg': [[10, 10, 0, 40]] * 3, 'b.jpg': [[5, 5, 0, 20]]})
    runner = SimpleNamespace(train_dataloader=SimpleNamespace(dataset=build_dataset(tmp_path)))
    with pytest.raises(DataFileError, match=r'has 2 images but not one instance to learn from'):
        EmptyDatasetCheckHook().before_train(runner)


def test_detection_training_set_with_one_box_trains(tmp_path, monkeypatch):
    monkeypatch.setattr(checked_coco, 'print_log', lambda msg, **kw: None)
    write_coco(tmp_path, {'a.jpg': [[10, 10, 0, 40]], 'b.jpg': [[5, 5, 10, 20]]})
    dataset = build_dataset(tmp_path)
    boxes = [i['bbox'] for k in range(len(dataset)) for i in dataset.get_data_info(k)['instances']]
    assert boxes == [[5, 5, 15, 25]]  # b.jpg's box (x1, y1, x2, y2): the one to learn from
    EmptyDatasetCheckHook().before_train(
        SimpleNamespace(train_dataloader=SimpleNamespace(dataset=dataset))
    )
