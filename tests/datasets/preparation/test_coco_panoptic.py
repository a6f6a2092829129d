"""Where the panoptic PNGs come from: the unpacked folder first, else the zip COCO ships."""

import zipfile

import pytest

from vitspec.datasets.preparation.coco_panoptic import PngSource
from vitspec.errors import DataFileError


def test_pngs_from_the_folder_or_the_zip_and_neither_named(tmp_path):
    with zipfile.ZipFile(tmp_path / 'panoptic_val2017.zip', 'w') as archive:
        archive.writestr('panoptic_val2017/1.png', b'zipped')
    source = PngSource(tmp_path, 'val2017')
    assert not source.unpacked and source.read('1.png')[0] == b'zipped'
    assert source.read('2.png') == (None, f'{tmp_path}/panoptic_val2017.zip:2.png')
    source.close()
    (tmp_path / 'panoptic_val2017').mkdir()
    (tmp_path / 'panoptic_val2017/1.png').write_bytes(b'unpacked')
    assert PngSource(tmp_path, 'val2017').read('1.png')[0] == b'unpacked'
    with pytest.raises(DataFileError, match='panoptic_train2017.zip exists'):
        PngSource(tmp_path, 'train2017')
