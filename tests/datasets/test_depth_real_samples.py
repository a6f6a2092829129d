"""The real NYU and KITTI samples load through the configs' own pipelines, and the depth
metric on a known prediction agrees with an RMSE computed by hand from the raw PNGs."""

import numpy as np
import pytest
import torch
from mmengine.config import Config
from mmengine.dataset import pseudo_collate
from mmengine.registry import DefaultScope
from mmengine.structures import PixelData
from mmseg.registry import DATASETS, METRICS, MODELS
from PIL import Image

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT

NYU = ROOT / 'configs/nyu/lin4_vit-s14-dinov2_8xb2-38k_nyu-416x544.py'
KITTI = ROOT / 'configs/kitti/lin4_vit-s14-dinov2_8xb2-38k_kitti-352x704.py'


def build(dataset_cfg):
    with DefaultScope.overwrite_default_scope('mmseg'):
        return DATASETS.build(dataset_cfg)


def nyu_dataset(realdata, split='val'):
    cfg = Config.fromfile(NYU)
    ds = cfg[f'{split}_dataloader'].dataset
    ds.update(
        data_root=str(realdata / 'nyu'),
        data_prefix=dict(img_path='images', depth_map_path='annotations'),
    )
    return build(ds), cfg


def kitti_dataset(realdata, split='val'):
    cfg = Config.fromfile(KITTI)
    ds = cfg[f'{split}_dataloader'].dataset
    kitti = realdata / 'kitti'
    ds.update(
        data_root=str(kitti),
        ann_file=str(kitti / 'derived/kitti_tiny_eigen_style_files.txt'),
        data_prefix=dict(img_path=str(kitti / 'KITTI_tiny'), depth_map_path=str(kitti / 'derived')),
    )
    return build(ds), cfg


def rmse_of(cfg, data_sample, pred: np.ndarray) -> float:
    data_sample.pred_depth_map = PixelData(data=torch.from_numpy(pred)[None].float())
    metric = METRICS.build(cfg.test_evaluator)
    metric.process({}, [data_sample.to_dict()])
    return metric.compute_metrics(metric.results)['rmse']


def test_nyu_sample_rmse_by_hand(realdata):
    dataset, cfg = nyu_dataset(realdata)
    assert len(dataset) == 1
    sample = dataset[0]['data_samples']
    gt = sample.gt_depth_map.data[0].numpy()
    assert gt.shape == (120, 160) and gt.max() == pytest.approx(10.0)

    ys, xs = np.mgrid[:120, :160]
    pred = 1.0 + 0.02 * ys + 0.01 * xs
    raw = np.asarray(Image.open(realdata / 'nyu/annotations/bookstore_0001d_00001.png'))
    depth = raw.astype(np.float64) / 1000
    box = (slice(11, 117), slice(10, 150))  # Eigen box 45:471, 41:601 scaled by 1/4
    valid = (depth[box] > 1e-3) & (depth[box] < 10)
    expected = np.sqrt(np.mean((depth[box][valid] - pred[box][valid]) ** 2))
    assert valid.sum() > 5000
    assert rmse_of(cfg, sample, pred) == pytest.approx(expected, rel=1e-6)


def test_kitti_sample_rmse_by_hand(realdata):
    dataset, cfg = kitti_dataset(realdata)
    assert len(dataset) == 7
    sample = dataset[5]['data_samples']
    assert sample.gt_depth_map.data.shape[-2:] == (352, 1216)  # KB crop
    assert sample.crop_offset == (23, 13, 375, 1242)

    full_rows = np.arange(352)[:, None] + 23  # a prediction that grows with the image row
    pred = np.broadcast_to(80.0 - 0.2 * full_rows, (352, 1216)).astype(np.float64)
    raw = np.asarray(
        Image.open(
            realdata / 'kitti/derived/2011_09_26_drive_0023_sync/'
            'proj_depth/velodyne_raw/image_02/0000000005.png'
        )
    )
    depth = raw.astype(np.float64) / 256
    depth = depth[23:, 13 : 13 + 1216]  # the KB crop, then the Garg box on it (the Toolbox's)
    rows, cols = np.mgrid[:352, :1216]
    garg = (rows >= 143) & (rows < 349) & (cols >= 43) & (cols < 1172)
    valid = garg & (depth > 1e-3) & (depth < 80)
    expected = np.sqrt(np.mean((depth[valid] - pred[valid]) ** 2))
    assert valid.sum() > 10000
    assert rmse_of(cfg, sample, pred) == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize('which', ['nyu', 'kitti'])
def test_train_pipelines_run_on_the_real_samples(realdata, which):
    dataset, cfg = (nyu_dataset if which == 'nyu' else kitti_dataset)(realdata, 'train')
    max_depth = cfg.depth_range['max_depth']
    for i in range(3):
        packed = dataset[i % len(dataset)]
        img, gt = packed['inputs'], packed['data_samples'].gt_depth_map.data[0]
        assert img.shape[-2:] == gt.shape
        if which == 'kitti':
            assert gt.shape == (352, 704)  # the random crop
        assert (gt >= 0).all() and gt.max() <= max_depth  # rotation pads with 0, not 255
        assert (gt > 0).float().mean() > 0.01


@pytest.mark.parametrize('which', ['nyu', 'kitti'])
@pytest.mark.slow
def test_protocol_model_predicts_at_ground_truth_size(realdata, which):
    """The config's test mode (whole image + flip) runs on the sample, and the prediction
    comes back at the ground truth's size, ready for the metric."""
    dataset, cfg = (nyu_dataset if which == 'nyu' else kitti_dataset)(realdata)
    cfg.model.backbone.update(num_layers=cfg.model.backbone.out_indices[-1] + 1, init_cfg=None)
    with DefaultScope.overwrite_default_scope('mmseg'):
        model = MODELS.build(cfg.model).eval()
    with torch.no_grad():
        out = model.test_step(pseudo_collate([dataset[0]]))[0]
    assert out.pred_depth_map.shape == out.gt_depth_map.shape
    depth = out.pred_depth_map.data
    assert depth.min() >= 1e-3 and depth.max() <= cfg.depth_range['max_depth']
