"""Bad depth inputs fail with the file named; crops and padding keep depth meaningful."""

import numpy as np
import pytest
import torch
from mmcv.transforms import Compose, LoadImageFromFile
from mmengine.config import Config
from mmengine.registry import DefaultScope
from mmengine.structures import PixelData
from mmseg.registry import DATASETS, MODELS
from mmseg.structures import SegDataSample
from PIL import Image

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT
from vitspec.datasets import CheckSampleFiles, KBCrop, LoadDepthPNG
from vitspec.datasets.depth_transforms import ColorAug, RegionCrop
from vitspec.errors import DataFileError

LINEAR = ROOT / 'configs/_base_/models/depth_linear.py'


def write_pair(folder, name, depth, size=(40, 60)):
    (folder / 'images').mkdir(parents=True, exist_ok=True)
    (folder / 'annotations').mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.zeros((*size, 3), np.uint8)).save(folder / 'images' / f'{name}.jpg')
    path = folder / 'annotations' / f'{name}.png'
    Image.fromarray(depth).save(path)
    return path


def load(tmp_path, name):
    results = dict(
        img_path=str(tmp_path / 'images' / f'{name}.jpg'),
        depth_map_path=str(tmp_path / 'annotations' / f'{name}.png'),
    )
    steps = (
        LoadImageFromFile(color_type='color_ignore_orientation'),
        CheckSampleFiles(depth_scale=1000),
        LoadDepthPNG(depth_scale=1000),
    )
    for step in steps:
        results = step(results)
    return results


def test_depth_loader_passes_an_image_without_depth_through(tmp_path):
    write_pair(tmp_path, 'ok', np.full((40, 60), 2500, np.uint16))
    results = dict(img_path=str(tmp_path / 'images' / 'ok.jpg'))
    assert 'gt_depth_map' not in LoadDepthPNG(depth_scale=1000)(results)


def test_depth_in_metres(tmp_path):
    write_pair(tmp_path, 'ok', np.full((40, 60), 2500, np.uint16))
    out = load(tmp_path, 'ok')
    assert out['gt_depth_map'].dtype == np.float32 and out['gt_depth_map'][0, 0] == 2.5
    assert out['seg_fields'] == ['gt_depth_map']


def test_eight_bit_depth_is_refused(tmp_path):
    path = write_pair(tmp_path, 'eight', np.full((40, 60), 25, np.uint8))
    with pytest.raises(DataFileError, match=f'{path}.*16-bit PNG, got uint8'):
        load(tmp_path, 'eight')


def test_depth_of_the_wrong_size_is_refused(tmp_path):
    path = write_pair(tmp_path, 'small', np.full((20, 30), 2500, np.uint16))
    with pytest.raises(DataFileError, match=f'{path} is 30x20 but its image .*small.jpg is 60x40'):
        load(tmp_path, 'small')


def test_missing_depth_png_is_named(tmp_path):
    write_pair(tmp_path, 'gone', np.full((40, 60), 2500, np.uint16)).unlink()
    with pytest.raises(DataFileError, match='depth map not found: .*gone.png'):
        load(tmp_path, 'gone')


def kitti_root(tmp_path, lines):
    img = tmp_path / 'raw/2011_09_26/d/image_02/data/0000000000.png'
    depth = tmp_path / 'gt/d/proj_depth/groundtruth/image_02/0000000000.png'
    for path in (img, depth):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b'')
    split = tmp_path / 'split.txt'
    split.write_text(''.join(line + '\n' for line in lines))
    return dict(
        type='KITTIDepthDataset',
        ann_file=str(split),
        data_prefix=dict(img_path=str(tmp_path / 'raw'), depth_map_path=str(tmp_path / 'gt')),
    )


def build(cfg):
    with DefaultScope.overwrite_default_scope('mmseg'):
        return DATASETS.build(cfg)


IMG = '2011_09_26/d/image_02/data/0000000000.png'
DEPTH = 'd/proj_depth/groundtruth/image_02/0000000000.png'


def test_kitti_split_lines(tmp_path):
    ds = build(kitti_root(tmp_path, [f'{IMG} {DEPTH} 721.5377', f'{IMG} None 721.5377']))
    assert len(ds) == 1  # frames without ground truth are skipped, as in BTS
    info = ds.get_data_info(0)
    assert info['img_path'].endswith(IMG) and info['depth_map_path'].endswith(DEPTH)
    assert info['focal'] == pytest.approx(721.5377)


@pytest.mark.parametrize(
    'line, what',
    [
        (f'{IMG.replace("0000000000", "0000000009")} {DEPTH} 721.5', 'image'),
        (f'{IMG} {DEPTH.replace("0000000000", "0000000009")} 721.5', 'depth map'),
    ],
)
def test_kitti_split_naming_a_missing_file(tmp_path, line, what):
    cfg = kitti_root(tmp_path, [f'{IMG} {DEPTH} 721.5377', line])
    with pytest.raises(DataFileError, match=f'split.txt:2: {what} .*0000000009.png does not exist'):
        build(cfg)


def test_kitti_malformed_split_line(tmp_path):
    with pytest.raises(DataFileError, match='split.txt:1: expected'):
        build(kitti_root(tmp_path, [f'{IMG} {DEPTH}']))


def test_kb_crop_records_where_it_cut():
    results = dict(
        img=np.zeros((375, 1242, 3)),
        gt_depth_map=np.ones((375, 1242)),
        seg_fields=['gt_depth_map'],
        ori_shape=(375, 1242),
    )
    out = KBCrop()(results)
    assert out['img'].shape[:2] == out['gt_depth_map'].shape == (352, 1216)
    assert out['crop_offset'] == (23, 13, 375, 1242) and out['ori_shape'] == (352, 1216)
    with pytest.raises(DataFileError, match='too small'):
        KBCrop()(dict(img=np.zeros((128, 384, 3)), seg_fields=[]))


@pytest.mark.parametrize(
    'region, box', [('nyu_eigen', (45, 471, 41, 601)), ('nyu_train', (45, 472, 43, 608))]
)
def test_region_crop_boxes(region, box):
    """'nyu_train': the Toolbox's NYUCrop, img[45:472, 43:608], that DINOv2's configs train on."""
    depth = np.arange(480 * 640, dtype=np.float32).reshape(480, 640)
    out = RegionCrop(region)(
        dict(img=np.zeros((480, 640, 3)), gt_depth_map=depth, seg_fields=['gt_depth_map'])
    )
    top, bottom, left, right = box
    assert out['gt_depth_map'].shape == out['img'].shape[:2] == (bottom - top, right - left)
    assert out['gt_depth_map'][0, 0] == top * 640 + left
    with pytest.raises(ValueError, match="unknown region 'nyu'.*nyu_train.*nyu_eigen"):
        RegionCrop('nyu')


def test_color_aug_is_the_toolbox_formula():
    """clip(img ** gamma * brightness * colour[c], 0, 255) on 0-255 values, the draws in the
    Toolbox's order: the coin, gamma, brightness, three colours."""
    img = np.random.default_rng(0).integers(0, 256, (6, 8, 3)).astype(np.uint8)
    aug = ColorAug(prob=0.5, gamma_range=(0.9, 1.1), brightness_range=(0.75, 1.25))
    for seed in range(6):
        np.random.seed(seed)
        out = aug(dict(img=img.copy()))['img']
        np.random.seed(seed)
        if np.random.rand() >= 0.5:
            np.testing.assert_array_equal(out, img)
            continue
        gamma, bright = np.random.uniform(0.9, 1.1), np.random.uniform(0.75, 1.25)
        colours = np.random.uniform(0.9, 1.1, size=3)
        expected = np.clip(img.astype(np.float64) ** gamma * bright * colours, 0, 255)
        assert out.dtype == np.float32
        np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_color_aug_refuses_bad_ranges():
    with pytest.raises(ValueError, match='prob'):
        ColorAug(prob=2)
    with pytest.raises(ValueError, match='brightness_range'):
        ColorAug(brightness_range=(0.9,))


def test_padding_adds_invalid_depth_not_255():
    """Size divisor 1 (the backbone centre-pads to the patch size): a batch of different sizes
    is padded to the largest, with depth 0 = no measurement; equal sizes are not padded."""
    cfg = Config.fromfile(LINEAR)
    assert cfg.data_preprocessor.size_divisor == 1
    with DefaultScope.overwrite_default_scope('mmseg'):
        pre = MODELS.build(cfg.data_preprocessor)
    batch = []
    for h, w in ((30, 40), (28, 44)):
        sample = SegDataSample(gt_depth_map=PixelData(data=torch.full((1, h, w), 3.0)))
        sample.set_metainfo(dict(img_shape=(h, w), ori_shape=(h, w)))
        batch.append((torch.zeros(3, h, w), sample))
    out = pre(dict(inputs=[b[0] for b in batch], data_samples=[b[1] for b in batch]), training=True)
    gt = out['data_samples'][0].gt_depth_map.data
    assert out['inputs'].shape[-2:] == gt.shape[-2:] == (30, 44)
    assert gt[0, :, 40:].eq(0).all() and gt[0, :, :40].eq(3).all()


NYU_DEMO = ROOT / 'configs/_base_/datasets/demo_nyu_depth.py'


def train_pipeline():
    cfg = Config.fromfile(NYU_DEMO)
    with DefaultScope.overwrite_default_scope('mmseg'):
        return Compose(cfg.train_pipeline)


def test_image_too_small_for_the_training_crop_is_named(tmp_path):
    """2x2: RegionCrop leaves a 1x1 image that RandomFlip + PackSegInputs could not pack."""
    write_pair(tmp_path, 'tiny', np.full((2, 2), 2500, np.uint16), size=(2, 2))
    image = tmp_path / 'images' / 'tiny.jpg'
    with pytest.raises(DataFileError, match=f'image {image} is 2x2: a side is shorter than 3'):
        load(tmp_path, 'tiny')


def test_smallest_image_passes_the_training_pipeline(tmp_path):
    write_pair(tmp_path, 'small', np.full((3, 3), 2500, np.uint16), size=(3, 3))
    results = dict(
        img_path=str(tmp_path / 'images' / 'small.jpg'),
        depth_map_path=str(tmp_path / 'annotations' / 'small.png'),
    )
    pipeline = train_pipeline()
    for seed in range(8):  # the random flips and rotations
        np.random.seed(seed)
        with DefaultScope.overwrite_default_scope('mmseg'):
            out = pipeline(dict(results))
        assert out['inputs'].shape[0] == 3
