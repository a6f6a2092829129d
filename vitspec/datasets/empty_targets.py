"""ADE20K and Cityscapes as EoMT reads them: a sample whose annotation holds a single value is
left out, in training and in validation (tue-mps/eomt datasets/dataset.py, ``check_empty_targets``:
an image whose label map has equal extrema is skipped; every EoMT data module turns it on and
passes it to its validation dataset too). mmseg's datasets score every image.
"""

import io
import logging

from mmengine.fileio import get
from mmengine.logging import print_log
from mmseg.datasets import ADE20KDataset, CityscapesDataset
from mmseg.registry import DATASETS
from PIL import Image


def holds_one_value(path: str, backend_args=None) -> bool:
    """Whether every pixel of the label file at ``path`` holds the same value (PIL's extrema,
    as upstream reads them)."""
    with Image.open(io.BytesIO(get(path, backend_args=backend_args))) as image:
        extrema = image.getextrema()
    bands = extrema if isinstance(extrema[0], tuple) else (extrema,)
    return all(low == high for low, high in bands)


class EmptyTargetCheck:
    """``check_empty_targets=True`` leaves out the samples whose label map holds one value; the
    samples left out are in ``empty_targets`` (the file report lists them, not as untaken)."""

    def __init__(self, *args, check_empty_targets: bool = False, **kwargs):
        self.check_empty_targets = check_empty_targets
        self.empty_targets = []
        super().__init__(*args, **kwargs)

    def filter_data(self) -> list:
        data_list = super().filter_data()
        if not self.check_empty_targets:
            return data_list
        kept, self.empty_targets = [], []
        for info in data_list:
            if holds_one_value(info['seg_map_path'], self.backend_args):
                self.empty_targets.append(info)
            else:
                kept.append(info)
        if self.empty_targets:
            print_log(
                f'{type(self).__name__}: {len(self.empty_targets)} of {len(data_list)} samples '
                'left out, their annotation holds a single value (check_empty_targets=True)',
                logger='current',
                level=logging.INFO,
            )
        return kept


@DATASETS.register_module()
class EoMTADE20KDataset(EmptyTargetCheck, ADE20KDataset):
    """mmseg's ADE20KDataset with EoMT's ``check_empty_targets``."""


@DATASETS.register_module()
class EoMTCityscapesDataset(EmptyTargetCheck, CityscapesDataset):
    """mmseg's CityscapesDataset with EoMT's ``check_empty_targets``."""
