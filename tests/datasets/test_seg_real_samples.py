"""The real ADE20K and Cityscapes samples load through the configs' own test pipelines, and
IoUMetric on them agrees with an mIoU computed by hand from the raw label PNGs."""

import numpy as np
import pytest
import torch
from mmengine.config import Config
from mmengine.evaluator import Evaluator
from mmengine.registry import DefaultScope
from mmseg.registry import DATASETS
from PIL import Image

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT

ADE = ROOT / 'configs/ade20k/linear_vit-s14-dinov2_bnhead_8xb2-40k_ade20k-512x512.py'
CITYSCAPES = (
    ROOT / 'configs/cityscapes/linear_vit-s14-dinov2_bnhead_8xb2-40k_cityscapes-512x1024.py'
)


def val_dataset(config, data_root):
    cfg = Config.fromfile(config)
    ds_cfg = cfg.val_dataloader.dataset
    ds_cfg.data_root = str(data_root)
    with DefaultScope.overwrite_default_scope('mmseg'):
        return DATASETS.build(ds_cfg), cfg


def ade_train_ids(png) -> np.ndarray:
    """ADE20K: 0 = "other" (ignored), 1..150 -> 0..149."""
    raw = np.asarray(Image.open(png)).astype(np.int64)
    return np.where(raw == 0, 255, raw - 1)


def cityscapes_train_ids(png) -> np.ndarray:
    return np.asarray(Image.open(str(png).replace('_labelIds', '_labelTrainIds'))).astype(np.int64)


def corrupt(gt: np.ndarray, num_classes: int) -> np.ndarray:
    """A prediction: the label where it is valid, class 0 where ignored, and the left third of
    the image relabelled to (label + 1) % num_classes."""
    pred = np.where(gt == 255, 0, gt)
    third = gt.shape[1] // 3
    pred[:, :third] = (pred[:, :third] + 1) % num_classes
    return pred


def hand_miou(pairs, num_classes) -> float:
    inter = np.zeros(num_classes)
    union = np.zeros(num_classes)
    for pred, gt in pairs:
        valid = gt != 255
        for c in range(num_classes):
            p, g = (pred == c) & valid, (gt == c) & valid
            inter[c] += (p & g).sum()
            union[c] += (p | g).sum()
    present = union > 0
    return 100 * float(np.mean(inter[present] / union[present]))


@pytest.mark.parametrize(
    'config, sub, reference',
    [
        (ADE, 'ade20k/ADEChallengeData2016', ade_train_ids),
        (CITYSCAPES, 'cityscapes', cityscapes_train_ids),
    ],
    ids=['ade20k', 'cityscapes'],
)
def test_real_samples_and_hand_computed_miou(realdata, config, sub, reference):
    dataset, cfg = val_dataset(config, realdata / sub)
    num_classes = cfg.num_classes
    assert len(dataset) >= 1 and len(dataset.metainfo['classes']) == num_classes
    with DefaultScope.overwrite_default_scope('mmseg'):
        evaluator = Evaluator(cfg.val_evaluator)
    evaluator.dataset_meta = dataset.metainfo
    pairs = []
    for i in range(len(dataset)):
        sample = dataset[i]['data_samples']
        gt = sample.gt_sem_seg.data[0].numpy().astype(np.int64)
        seg_map = sample.seg_map_path
        if 'cityscapes' in sub:
            assert seg_map.endswith('_gtFine_labelTrainIds.png')
            seg_map = seg_map.replace('_labelTrainIds', '_labelIds')
        np.testing.assert_array_equal(gt, reference(seg_map))  # reduce_zero_label / trainIds
        assert tuple(sample.ori_shape) == gt.shape
        pred = corrupt(gt, num_classes)
        pairs.append((pred, gt))
        sample.set_data(
            dict(pred_sem_seg=type(sample.gt_sem_seg)(data=torch.from_numpy(pred)[None]))
        )
        evaluator.process([sample])
    metrics = evaluator.evaluate(len(dataset))
    expected = hand_miou(pairs, num_classes)
    assert 5 < expected < 95
    assert metrics['mIoU'] == pytest.approx(expected, abs=0.006)
