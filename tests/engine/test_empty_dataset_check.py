from types import SimpleNamespace

import pytest

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
