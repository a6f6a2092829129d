"""The 16 real COCO images through the ViTDet configs' pipelines, and mmdet's CocoMetric on the
ground truth fed back as detections (AP 1) and on a perturbed copy (lower AP)."""

import numpy as np
import pytest
import torch
from mmdet.evaluation import CocoMetric
from mmdet.registry import DATASETS
from mmdet.structures.mask import PolygonMasks
from mmengine.config import Config
from mmengine.registry import DefaultScope

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT

CONFIG = 'configs/coco/mask-rcnn_vit-b16-mae_simplefpn_16xb4-amp-lsj-100e_coco-1024x1024.py'
ANN = 'annotations/instances_train2017.json'


def real_dataset(realdata, split, **overrides):
    cfg = Config.fromfile(ROOT / CONFIG)
    dataset = cfg[f'{split}_dataloader'].dataset
    dataset.update(
        data_root=str(realdata / 'coco') + '/',
        ann_file=ANN,
        data_prefix=dict(img='train2017/'),
        **overrides,
    )
    with DefaultScope.overwrite_default_scope('mmdet'):
        return DATASETS.build(dataset)


@pytest.fixture(scope='module')
def coco_gt(realdata):
    return real_dataset(realdata, 'val', pipeline=[])


@pytest.mark.parametrize('split', ['train', 'val'])
def test_real_images_load_through_the_pipeline(realdata, split):
    dataset = real_dataset(realdata, split)
    assert len(dataset) == 16
    torch.manual_seed(0)
    np.random.seed(0)
    for i in range(len(dataset)):
        sample = dataset[i]
        meta, gt = sample['data_samples'].metainfo, sample['data_samples'].gt_instances
        # unpadded: the data preprocessor pads to 1024x1024 (pad_size_divisor=1024)
        assert sample['inputs'].shape[1:] == meta['img_shape']
        assert max(meta['img_shape']) <= 1024
        if split == 'val':
            assert max(meta['img_shape']) == 1024
            crowd = sample['data_samples'].ignored_instances  # iscrowd regions
            assert len(gt) + len(crowd) == len(dataset.get_data_info(i)['instances'])
            assert len(gt) > 0
        boxes = gt.bboxes.tensor
        assert (boxes[:, 2:] >= boxes[:, :2]).all() and (boxes >= 0).all() and (boxes <= 1024).all()
        assert len(gt.masks) == len(gt)


def ground_truth_as_detections(dataset, shift=0.0):
    """The non-crowd instances of every image as detections with score 1, boxes and masks
    moved right and down by ``shift`` of the box size."""
    samples = []
    for info in (dataset.get_data_info(i) for i in range(len(dataset))):
        h, w = info['height'], info['width']
        kept = [inst for inst in info['instances'] if not inst['ignore_flag']]
        boxes = torch.tensor([inst['bbox'] for inst in kept], dtype=torch.float32)
        masks = PolygonMasks([[np.asarray(p) for p in inst['mask']] for inst in kept], h, w)
        masks = torch.from_numpy(masks.to_ndarray()).bool()
        if shift:
            sizes = boxes[:, 2:] - boxes[:, :2]
            offsets = (sizes * shift).round()
            boxes += offsets.repeat(1, 2)
            masks = torch.stack(
                [
                    m.roll((int(dy), int(dx)), dims=(0, 1))
                    for m, (dx, dy) in zip(masks, offsets.tolist())
                ]
            )
        samples.append(
            dict(
                img_id=info['img_id'],
                ori_shape=(h, w),
                pred_instances=dict(
                    bboxes=boxes,
                    masks=masks,
                    scores=torch.ones(len(kept)),
                    labels=torch.tensor([inst['bbox_label'] for inst in kept]),
                ),
            )
        )
    return samples


def coco_ap(dataset, samples):
    metric = CocoMetric(ann_file=dataset.ann_file, metric=['bbox', 'segm'])
    metric.dataset_meta = dataset.metainfo
    metric.process({}, samples)
    return metric.compute_metrics(metric.results)


def test_coco_metric_gives_ap_1_on_the_ground_truth(coco_gt):
    results = coco_ap(coco_gt, ground_truth_as_detections(coco_gt))
    assert results['bbox_mAP'] == pytest.approx(1.0)
    assert results['segm_mAP'] == pytest.approx(1.0)


def test_coco_metric_gives_lower_ap_on_perturbed_ground_truth(coco_gt):
    results = coco_ap(coco_gt, ground_truth_as_detections(coco_gt, shift=0.15))
    assert 0.0 < results['bbox_mAP'] < 0.9
    assert 0.0 < results['segm_mAP'] < 0.9
