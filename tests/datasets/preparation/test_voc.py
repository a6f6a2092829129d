"""SBD's class maps read from GTcls.Segmentation, with what is wrong in a .mat named."""

import numpy as np
import pytest
from scipy.io import savemat

from vitspec.datasets.preparation.voc import find_voc, sbd_class_map
from vitspec.errors import DataFileError


def test_the_class_map_of_the_sbd_struct_and_its_errors(tmp_path):
    classes = np.arange(20, dtype=np.uint8).reshape(4, 5)
    savemat(tmp_path / 'a.mat', {'GTcls': {'Segmentation': classes, 'Boundaries': 0}})
    assert np.array_equal(sbd_class_map(tmp_path / 'a.mat'), classes)
    savemat(tmp_path / 'b.mat', {'GTinst': {'Segmentation': classes}})
    with pytest.raises(ValueError, match='no GTcls.Segmentation'):
        sbd_class_map(tmp_path / 'b.mat')
    (tmp_path / 'c.mat').write_bytes(b'not matlab')
    with pytest.raises(ValueError, match='cannot be read as a MATLAB file'):
        sbd_class_map(tmp_path / 'c.mat')


def test_a_missing_voc_folder_is_named_with_the_native_layout(tmp_path):
    (tmp_path / 'VOCdevkit/VOC2012/JPEGImages').mkdir(parents=True)
    with pytest.raises(DataFileError, match=r'(?s)SegmentationClass is missing; .*SBD'):
        find_voc(tmp_path)
