"""Cityscapes train ids: cityscapesscripts' table on label-id maps, its renderer on polygons,
the same map either way, and unknown ids or labels named."""

import json

import numpy as np
import pytest
from cityscapesscripts.helpers.labels import labels
from PIL import Image

from vitspec.datasets.preparation.cityscapes import (
    train_ids_from_label_ids,
    train_ids_from_polygons,
)


def polygons(tmp_path, objects):
    path = tmp_path / 'f_gtFine_polygons.json'
    path.write_text(json.dumps({'imgHeight': 8, 'imgWidth': 10, 'objects': objects}))
    return path


def test_every_id_maps_as_cityscapesscripts_says(tmp_path):
    known = [label for label in labels if label.id >= 0]
    ids = np.array([[label.id for label in known]], dtype=np.uint8)
    Image.fromarray(ids).save(tmp_path / 'l.png')
    expected = [label.trainId if 0 <= label.trainId < 255 else 255 for label in known]
    assert train_ids_from_label_ids(tmp_path / 'l.png')[0].tolist() == expected
    assert expected[7] == 0 and expected[26] == 13  # road, car


def test_polygons_give_the_map_of_the_label_ids_drawn_from_them(tmp_path):
    objects = [
        {'label': 'road', 'polygon': [[0, 4], [9, 4], [9, 7], [0, 7]]},
        {'label': 'cargroup', 'polygon': [[2, 0], [6, 0], [6, 5], [2, 5]]},
        {'label': 'license plate', 'polygon': [[3, 3], [4, 3], [4, 4], [3, 4]]},
    ]
    from_polygons = train_ids_from_polygons(polygons(tmp_path, objects))
    ids = np.zeros((8, 10), dtype=np.uint8)
    ids[4:8, :] = 7
    ids[0:6, 2:7] = 26
    Image.fromarray(ids).save(tmp_path / 'l.png')
    assert np.array_equal(from_polygons, train_ids_from_label_ids(tmp_path / 'l.png'))
    assert from_polygons[0, 0] == 255 and from_polygons[7, 0] == 0 and from_polygons[3, 3] == 13


def test_unknown_ids_and_labels_are_named(tmp_path):
    Image.fromarray(np.array([[7, 34, 200]], dtype=np.uint8)).save(tmp_path / 'l.png')
    with pytest.raises(ValueError, match=r'ids \[34, 200\]'):
        train_ids_from_label_ids(tmp_path / 'l.png')
    path = polygons(tmp_path, [{'label': 'spaceship', 'polygon': [[0, 0], [1, 0], [1, 1]]}])
    with pytest.raises(ValueError, match="label 'spaceship'"):
        train_ids_from_polygons(path)
