"""The demo data in Pascal VOC 2012's layout: its files and label encodings, loading through
mmseg's unchanged PascalVOCDataset (train.txt + SBD aug.txt), and the VOC demo config running 2
iterations and a test on it."""

import numpy as np
import pytest
from mmengine.config import Config
from PIL import Image

from tests.utils import ROOT, make_demo_data
from vitspec.demo.voc import VOC_IDS, voc_palette
from vitspec.runs.runner import build_runner

CONFIG = ROOT / 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-voc-128x128.py'
NUM_TRAIN, NUM_VAL = 4, 2


@pytest.fixture(scope='module')
def voc(tmp_path_factory):
    return make_demo_data(tmp_path_factory.mktemp('demo'), 'voc', NUM_TRAIN, NUM_VAL)


def names(root, split):
    return (root / 'ImageSets' / 'Segmentation' / f'{split}.txt').read_text().split()


def test_splits_partition_the_images(voc):
    train, aug, val = names(voc, 'train'), names(voc, 'aug'), names(voc, 'val')
    assert len(train) + len(aug) == NUM_TRAIN and len(val) == NUM_VAL
    assert names(voc, 'trainaug') == train + aug
    assert not set(train + aug) & set(val)
    assert sorted(p.stem for p in (voc / 'JPEGImages').glob('*.jpg')) == sorted(train + aug + val)


def test_voc_labels_are_palette_pngs_with_ignored_borders(voc):
    for name in names(voc, 'train') + names(voc, 'val'):
        with Image.open(voc / 'SegmentationClass' / f'{name}.png') as label:
            assert label.mode == 'P'
            palette = np.array(label.getpalette()[: 256 * 3], np.uint8).reshape(-1, 3)
            values = np.array(label)
        np.testing.assert_array_equal(palette, voc_palette())
        with Image.open(voc / 'JPEGImages' / f'{name}.jpg') as image:
            assert values.shape == (image.height, image.width)
        assert set(np.unique(values)) <= {0, 255, *VOC_IDS.values()}
        objects = np.isin(values, list(VOC_IDS.values()))
        assert objects.any() and (values == 255).any()
        # every object pixel that touches background lies on a 255 border instead
        assert not (objects[:, 1:] & (values[:, :-1] == 0)).any()
        assert not (objects[1:, :] & (values[:-1, :] == 0)).any()


def test_voc_palette_is_the_devkit_colour_map():
    palette = voc_palette()
    assert palette[:4].tolist() == [[0, 0, 0], [128, 0, 0], [0, 128, 0], [128, 128, 0]]
    assert palette[15].tolist() == [192, 128, 128] and palette[255].tolist() == [224, 224, 192]


def test_sbd_labels_are_plain_class_maps_without_borders(voc):
    for name in names(voc, 'aug'):
        assert not (voc / 'SegmentationClass' / f'{name}.png').exists()
        with Image.open(voc / 'SegmentationClassAug' / f'{name}.png') as label:
            assert label.mode == 'L'
            values = np.array(label)
        assert set(np.unique(values)) <= {0, *VOC_IDS.values()}


def test_mmseg_reads_train_and_aug_through_the_shipped_dataset_config(voc):
    from mmseg.registry import DATASETS
    from mmseg.utils import register_all_modules

    register_all_modules()
    cfg = Config.fromfile(
        ROOT / 'configs/voc/linear_vit-s14-dinov2_bnhead_8xb2-40k_voc12aug-512x512.py'
    )
    datasets = cfg.train_dataloader.dataset.datasets
    for part in datasets:
        part.data_root = str(voc)
    concat = DATASETS.build(cfg.train_dataloader.dataset)
    assert len(concat) == NUM_TRAIN
    sample = concat[len(concat) - 1]  # an SBD image, through the whole training pipeline
    labels = sample['data_samples'].gt_sem_seg.data
    assert set(labels.unique().tolist()) <= {0, 255, *VOC_IDS.values()}
    assert concat.metainfo['classes'][0] == 'background' and len(concat.metainfo['classes']) == 21


@pytest.mark.slow  # about 20 s on 2 busy cores
def test_demo_voc_config_trains_two_iterations_and_tests(voc, tmp_path):
    cfg = Config.fromfile(CONFIG)
    for part in cfg.train_dataloader.dataset.datasets:
        part.data_root = str(voc)
    for split in ('val_dataloader', 'test_dataloader'):
        cfg[split].dataset.data_root = str(voc)
    cfg.train_cfg.update(max_iters=2, val_interval=3)
    cfg.default_hooks.checkpoint.update(interval=2)
    cfg.work_dir = str(tmp_path)
    runner = build_runner(cfg)
    runner.train()
    metrics = runner.test()
    assert 0.0 <= metrics['mIoU'] <= 100.0
