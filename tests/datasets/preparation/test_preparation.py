"""Each dataset's default --out is the data_root its configs read."""

from pathlib import Path

import pytest
from mmengine.config import Config

from vitspec.datasets.preparation import DATASETS

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = {
    'cityscapes': 'cityscapes_512x1024.py',
    'voc': 'voc12aug_512x512.py',
    'coco-panoptic': 'coco_panoptic_eomt_640x640.py',
    'ade20k': 'ade20k_512x512.py',
}


@pytest.mark.parametrize('name', sorted(CONFIGS))
def test_default_out_is_the_configs_data_root(name):
    cfg = Config.fromfile(ROOT / 'configs/_base_/datasets' / CONFIGS[name])
    assert Path(cfg.val_dataloader.dataset.data_root) == Path(DATASETS[name].default_out)
