"""Tests of vitspec.demo: layouts, label encodings, determinism, idempotent re-runs, and (when
mmseg / mmdet import) loading through their unchanged dataset classes."""

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.utils import REALDATA
from tools.make_demo_data import main

REAL_COCO = REALDATA / 'coco' / 'annotations' / 'instances_train2017.json'
NUM_TRAIN, NUM_VAL = 3, 2
DATASETS = ('ade20k', 'cityscapes', 'coco', 'nyu', 'kitti', 'voc')

# Cityscapes labels (cityscapesscripts/helpers/labels.py): name -> (labelId, trainId).
CITYSCAPES_LABELS = {
    'unlabeled': (0, 255),
    'ego vehicle': (1, 255),
    'rectification border': (2, 255),
    'out of roi': (3, 255),
    'static': (4, 255),
    'dynamic': (5, 255),
    'ground': (6, 255),
    'road': (7, 0),
    'sidewalk': (8, 1),
    'parking': (9, 255),
    'rail track': (10, 255),
    'building': (11, 2),
    'wall': (12, 3),
    'fence': (13, 4),
    'guard rail': (14, 255),
    'bridge': (15, 255),
    'tunnel': (16, 255),
    'pole': (17, 5),
    'polegroup': (18, 255),
    'traffic light': (19, 6),
    'traffic sign': (20, 7),
    'vegetation': (21, 8),
    'terrain': (22, 9),
    'sky': (23, 10),
    'person': (24, 11),
    'rider': (25, 12),
    'car': (26, 13),
    'truck': (27, 14),
    'bus': (28, 15),
    'caravan': (29, 255),
    'trailer': (30, 255),
    'train': (31, 16),
    'motorcycle': (32, 17),
    'bicycle': (33, 18),
}
CITYSCAPES_HAS_INSTANCES = {
    'person',
    'rider',
    'car',
    'truck',
    'bus',
    'caravan',
    'trailer',
    'train',
    'motorcycle',
    'bicycle',
}


def generate(out, *extra):
    main(
        [
            '--out',
            str(out),
            '--num-train',
            str(NUM_TRAIN),
            '--num-val',
            str(NUM_VAL),
            *map(str, extra),
        ]
    )
    return out


@pytest.fixture(scope='module')
def demo(tmp_path_factory):
    return generate(tmp_path_factory.mktemp('demo'))


def read(path):
    with Image.open(path) as image:
        return np.array(image)


def image_mode(path):
    with Image.open(path) as image:
        return image.mode


def files(folder, pattern='*'):
    return sorted(p for p in Path(folder).glob(pattern) if p.is_file())


def image_size(path):
    with Image.open(path) as image:
        return image.height, image.width


# ------------------------------------------------------------------------ layouts


def test_every_dataset_is_complete_with_a_marker(demo):
    for name in DATASETS:
        marker = json.loads((demo / name / '.complete').read_text())
        assert marker['seed'] == 0
        assert (marker['num_train'], marker['num_val']) == (NUM_TRAIN, NUM_VAL)
    assert not list(demo.glob('.*partial*'))


def test_ade20k_layout_and_labels(demo):
    base = demo / 'ade20k' / 'ADEChallengeData2016'
    for folder, prefix, count in (
        ('training', 'ADE_train', NUM_TRAIN),
        ('validation', 'ADE_val', NUM_VAL),
    ):
        images = files(base / 'images' / folder)
        labels = files(base / 'annotations' / folder)
        assert len(images) == count
        assert [p.stem for p in images] == [p.stem for p in labels]
        for image, label in zip(images, labels):
            assert re.fullmatch(prefix + r'_\d{8}\.jpg', image.name)
            assert image_mode(image) == 'RGB'
            assert image_mode(label) in ('L', 'P')
            values = read(label)
            assert values.shape == image_size(image)
            assert values.max() <= 150
            assert (values > 0).any()


def test_cityscapes_layout(demo):
    for split, count in (('train', NUM_TRAIN), ('val', NUM_VAL)):
        images = files(demo / 'cityscapes' / 'leftImg8bit' / split, '*/*')
        assert len(images) == count
        for image in images:
            match = re.fullmatch(r'([a-z]+)_(\d{6})_(\d{6})_leftImg8bit\.png', image.name)
            assert match and match.group(1) == image.parent.name
            stem = image.name[: -len('_leftImg8bit.png')]
            gt = demo / 'cityscapes' / 'gtFine' / split / image.parent.name
            for suffix in ('labelIds', 'labelTrainIds', 'instanceIds'):
                assert (gt / f'{stem}_gtFine_{suffix}.png').is_file()
        labels = files(demo / 'cityscapes' / 'gtFine' / split, '*/*')
        assert len(labels) == 3 * count


def test_cityscapes_train_ids_follow_the_official_mapping(demo):
    to_train_id = np.full(256, -1)
    for label_id, train_id in CITYSCAPES_LABELS.values():
        to_train_id[label_id] = train_id
    instance_label_ids = {CITYSCAPES_LABELS[n][0] for n in CITYSCAPES_HAS_INSTANCES}
    for label_path in files(demo / 'cityscapes' / 'gtFine', '*/*/*_gtFine_labelIds.png'):
        label_ids = read(label_path)
        train_ids = read(str(label_path).replace('_labelIds', '_labelTrainIds'))
        instance_ids = read(str(label_path).replace('_labelIds', '_instanceIds'))
        image = (
            str(label_path)
            .replace('gtFine', 'leftImg8bit', 1)
            .replace('_gtFine_labelIds', '_leftImg8bit')
        )
        assert label_ids.shape == train_ids.shape == instance_ids.shape == image_size(image)
        assert label_ids.dtype == train_ids.dtype == np.uint8
        assert instance_ids.dtype == np.uint16
        assert (to_train_id[label_ids] >= 0).all(), 'labelIds outside the official table'
        np.testing.assert_array_equal(train_ids, to_train_id[label_ids])
        assert set(np.unique(train_ids)) <= set(range(19)) | {255}
        # instanceIds: labelId * 1000 + k on instance classes, the plain labelId elsewhere
        is_instance = instance_ids >= 1000
        np.testing.assert_array_equal(
            np.where(is_instance, instance_ids // 1000, instance_ids), label_ids
        )
        assert set(np.unique(instance_ids[is_instance] // 1000)) <= instance_label_ids
        assert not np.isin(label_ids[~is_instance], list(instance_label_ids)).any()


def polygon_mask(polygons, height, width):
    """Pixels whose centre lies inside the polygons (even-odd rule)."""
    ys, xs = np.mgrid[:height, :width] + 0.5
    inside = np.zeros((height, width), bool)
    for flat in polygons:
        px, py = np.asarray(flat[0::2]), np.asarray(flat[1::2])
        for x0, y0, x1, y1 in zip(px, py, np.roll(px, -1), np.roll(py, -1)):
            if y0 == y1:
                continue
            crosses = (ys >= min(y0, y1)) & (ys < max(y0, y1))
            x_at = x0 + (ys - y0) * (x1 - x0) / (y1 - y0)
            inside ^= crosses & (xs < x_at)
    return inside


@pytest.mark.parametrize('split', ['train', 'val'])
def test_coco_annotations_are_consistent(demo, split):
    base = demo / 'coco'
    doc = json.loads((base / 'annotations' / f'instances_{split}2017.json').read_text())
    assert set(doc) >= {'info', 'licenses', 'images', 'annotations', 'categories'}
    count = NUM_TRAIN if split == 'train' else NUM_VAL
    assert len(doc['images']) == len(files(base / f'{split}2017')) == count
    images = {image['id']: image for image in doc['images']}
    for image in doc['images']:
        assert re.fullmatch(r'\d{12}\.jpg', image['file_name'])
        assert image_size(base / f'{split}2017' / image['file_name']) == (
            image['height'],
            image['width'],
        )
    category_ids = {c['id'] for c in doc['categories']}
    ids = [a['id'] for a in doc['annotations']]
    assert len(ids) == len(set(ids))
    assert doc['annotations'], 'no instances at all'
    masks_per_image = {}
    for ann in doc['annotations']:
        image = images[ann['image_id']]
        assert ann['category_id'] in category_ids and ann['iscrowd'] == 0
        x, y, w, h = ann['bbox']
        assert w > 0 and h > 0 and ann['area'] > 0
        assert x >= 0 and y >= 0 and x + w <= image['width'] and y + h <= image['height']
        polygons = ann['segmentation']
        assert isinstance(polygons, list) and polygons
        assert all(len(p) >= 6 and len(p) % 2 == 0 for p in polygons)
        xs = np.concatenate([p[0::2] for p in polygons])
        ys = np.concatenate([p[1::2] for p in polygons])
        assert [xs.min(), ys.min(), xs.max() - xs.min(), ys.max() - ys.min()] == ann['bbox']
        mask = polygon_mask(polygons, image['height'], image['width'])
        assert mask.sum() == ann['area']
        rows, cols = np.nonzero(mask)
        assert [
            cols.min(),
            rows.min(),
            cols.max() + 1 - cols.min(),
            rows.max() + 1 - rows.min(),
        ] == ann['bbox']
        masks_per_image.setdefault(ann['image_id'], []).append(mask)
    for masks in masks_per_image.values():  # visible parts never overlap
        assert (np.sum(masks, axis=0) <= 1).all()


def test_coco_categories_are_real_coco_categories(demo):
    doc = json.loads((demo / 'coco' / 'annotations' / 'instances_train2017.json').read_text())
    if not REAL_COCO.is_file():
        pytest.skip(f'{REAL_COCO} (real COCO categories) is not on this machine')
    real = {c['id']: c for c in json.loads(REAL_COCO.read_text())['categories']}
    for category in doc['categories']:
        assert category == real[category['id']]


def test_nyu_layout_and_depth(demo):
    for split, count in (('train', NUM_TRAIN), ('test', NUM_VAL)):
        images = files(demo / 'nyu' / 'images' / split)
        depths = files(demo / 'nyu' / 'annotations' / split)
        assert len(images) == count
        assert [p.stem for p in images] == [p.stem for p in depths]
        for image, depth_path in zip(images, depths):
            assert re.fullmatch(r'[a-z_]+_\d{4}[a-z]?_\d{5}\.jpg', image.name)
            assert image_mode(depth_path) == 'I;16'
            depth = read(depth_path)
            assert depth.dtype == np.uint16
            height, width = image_size(image)
            assert depth.shape == (height, width) and width * 3 == height * 4
            assert depth.max() <= 10000 and (depth > 0).mean() > 0.5
            assert (depth == 0).any(), 'real Kinect depth has holes'


def test_kitti_split_files_point_at_existing_files(demo):
    base = demo / 'kitti'
    for list_name, split, count in (
        ('eigen_train_files.txt', 'train', NUM_TRAIN),
        ('eigen_test_files.txt', 'val', NUM_VAL),
    ):
        lines = (base / list_name).read_text().splitlines()
        assert len(lines) == count
        for line in lines:
            image, depth, focal = line.split()
            assert float(focal) == pytest.approx(721.5377)
            assert re.fullmatch(
                r'(\d{4}_\d\d_\d\d)/\1_drive_\d{4}_sync/image_02/data/'
                r'\d{10}\.png',
                image,
            )
            assert re.fullmatch(
                split + r'/\d{4}_\d\d_\d\d_drive_\d{4}_sync/proj_depth/'
                r'groundtruth/image_02/\d{10}\.png',
                depth,
            )
            drive, frame = image.split('/')[1], image.split('/')[-1]
            assert depth.split('/')[1] == drive and depth.endswith(frame)
            assert (base / 'raw' / image).is_file()
            assert image_mode(base / 'data_depth_annotated' / depth) == 'I;16'
            values = read(base / 'data_depth_annotated' / depth)
            assert values.shape == image_size(base / 'raw' / image)
            assert values.max() <= 80 * 256
            assert 0.05 < (values > 0).mean() < 0.5, 'expected sparse, LiDAR-like depth'
            assert not values[: values.shape[0] // 3].any()


def local_contrast(gray, size=5):
    windows = np.lib.stride_tricks.sliding_window_view(
        np.pad(gray, size // 2, mode='edge'), (size, size)
    )
    return windows.std(axis=(-2, -1))


def test_appearance_predicts_depth_better_than_the_mean(tmp_path):
    """Colour and texture contrast alone, fitted per pixel by least squares, beat the mean depth."""
    out = tmp_path / 'demo'
    main(['--out', str(out), '--datasets', 'nyu', '--num-train', '16', '--num-val', '8'])

    def pixels(split):
        features, targets = [], []
        for image in files(out / 'nyu' / 'images' / split):
            depth = read(out / 'nyu' / 'annotations' / split / f'{image.stem}.png') / 1000.0
            rgb = read(image) / 255.0
            contrast = local_contrast(rgb.mean(axis=2)).ravel()
            rgb = rgb.reshape(-1, 3)
            valid = depth.ravel() > 0
            features.append(np.c_[np.ones(len(rgb)), rgb, rgb**2, contrast, contrast**2][valid])
            targets.append(depth.ravel()[valid])
        return np.concatenate(features), np.concatenate(targets)

    train_x, train_y = pixels('train')
    test_x, test_y = pixels('test')
    weights = np.linalg.lstsq(train_x, train_y, rcond=None)[0]
    fitted = np.sqrt(np.mean((test_x @ weights - test_y) ** 2))
    mean_only = np.sqrt(np.mean((train_y.mean() - test_y) ** 2))
    assert fitted < 0.85 * mean_only


# ---------------------------------------------------------- determinism and re-runs


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path):
    def run(name, seed):
        return generate(tmp_path / name, '--datasets', 'ade20k', 'coco', '--seed', seed)

    first, again, other = run('a', 0), run('b', 0), run('c', 1)
    label = Path('ade20k/ADEChallengeData2016/annotations/training/ADE_train_00000001.png')
    coco = Path('coco/annotations/instances_train2017.json')
    for path in (label, coco):
        assert (first / path).read_bytes() == (again / path).read_bytes()
        assert (first / path).read_bytes() != (other / path).read_bytes()


def test_an_image_does_not_depend_on_the_split_size(tmp_path):
    small = generate(tmp_path / 'small', '--datasets', 'nyu')
    large = tmp_path / 'large'
    main(['--out', str(large), '--datasets', 'nyu', '--num-train', '6', '--num-val', '1'])
    for depth in files(small / 'nyu' / 'annotations' / 'train'):
        assert depth.read_bytes() == (large / depth.relative_to(small)).read_bytes()


def snapshot(folder):
    return {p: p.stat().st_mtime_ns for p in sorted(folder.rglob('*'))}


def test_rerun_with_the_marker_is_a_no_op(tmp_path, capsys):
    out = generate(tmp_path / 'demo', '--datasets', 'nyu', 'kitti')
    before = snapshot(out)
    capsys.readouterr()
    generate(out, '--datasets', 'nyu', 'kitti')
    assert snapshot(out) == before
    assert capsys.readouterr().out.count('already complete') == 2


def test_other_parameters_replace_the_dataset(tmp_path):
    out = generate(tmp_path / 'demo', '--datasets', 'nyu')
    main(
        [
            '--out',
            str(out),
            '--datasets',
            'nyu',
            '--num-train',
            '1',
            '--num-val',
            '1',
            '--seed',
            '5',
        ]
    )
    assert len(files(out / 'nyu' / 'images' / 'train')) == 1
    assert json.loads((out / 'nyu' / '.complete').read_text())['seed'] == 5
    assert sorted(p.name for p in out.iterdir()) == ['nyu']


def test_a_folder_without_marker_is_not_overwritten_without_force(tmp_path):
    foreign = tmp_path / 'demo' / 'nyu'
    foreign.mkdir(parents=True)
    (foreign / 'mine.txt').write_text('keep me')
    with pytest.raises(SystemExit, match='--force'):
        generate(tmp_path / 'demo', '--datasets', 'nyu')
    assert (foreign / 'mine.txt').read_text() == 'keep me'
    generate(tmp_path / 'demo', '--datasets', 'nyu', '--force')
    assert not (foreign / 'mine.txt').exists() and (foreign / '.complete').is_file()


def test_leftovers_of_a_killed_run_are_removed(tmp_path):
    out = tmp_path / 'demo'
    dead = subprocess.run(
        [sys.executable, '-c', 'import os; print(os.getpid())'],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    leftover = out / f'.nyu.partial-{dead}'
    (leftover / 'images').mkdir(parents=True)
    generate(out, '--datasets', 'nyu')
    assert not leftover.exists()
    assert (out / 'nyu' / '.complete').is_file()


# ------------------------------------------------------- through mmseg and mmdet


def require(module):
    try:
        importlib.import_module(module)
    except Exception as exc:  # mmseg/mmdet fail to import without mmcv's compiled ops
        pytest.skip(
            f'`import {module}` failed ({type(exc).__name__}: {exc}); '
            'these tests need the full OpenMMLab stack from tools/install.sh'
        )


def mmseg_samples(dataset_type, root, data_prefix, annotation_loader):
    import mmseg.datasets
    from mmcv.transforms import LoadImageFromFile

    dataset = getattr(mmseg.datasets, dataset_type)(
        data_root=str(root),
        data_prefix=data_prefix,
        pipeline=[LoadImageFromFile(), annotation_loader],
    )
    return [dataset[i] for i in range(len(dataset))]


@pytest.mark.parametrize('name', ['ade20k', 'cityscapes'])
def test_mmseg_reads_segmentation(demo, name):
    require('mmseg.models')
    from mmseg.datasets.transforms import LoadAnnotations

    dataset_type, root, prefixes, num_classes = {
        'ade20k': (
            'ADE20KDataset',
            demo / 'ade20k' / 'ADEChallengeData2016',
            [
                ('images/training', 'annotations/training', NUM_TRAIN),
                ('images/validation', 'annotations/validation', NUM_VAL),
            ],
            150,
        ),
        'cityscapes': (
            'CityscapesDataset',
            demo / 'cityscapes',
            [
                ('leftImg8bit/train', 'gtFine/train', NUM_TRAIN),
                ('leftImg8bit/val', 'gtFine/val', NUM_VAL),
            ],
            19,
        ),
    }[name]
    for img_path, seg_map_path, count in prefixes:
        samples = mmseg_samples(
            dataset_type,
            root,
            dict(img_path=img_path, seg_map_path=seg_map_path),
            LoadAnnotations(reduce_zero_label=name == 'ade20k'),
        )
        assert len(samples) == count
        for sample in samples:
            labels = sample['gt_seg_map']
            assert labels.shape == sample['img'].shape[:2]
            assert set(np.unique(labels)) <= set(range(num_classes)) | {255}
            assert (labels != 255).any()


def test_mmseg_reads_nyu(demo):
    require('mmseg.models')
    from mmseg.datasets.transforms import LoadDepthAnnotation

    for split, count in (('train', NUM_TRAIN), ('test', NUM_VAL)):
        samples = mmseg_samples(
            'NYUDataset',
            demo / 'nyu',
            dict(img_path=f'images/{split}', depth_map_path=f'annotations/{split}'),
            LoadDepthAnnotation(depth_rescale_factor=1e-3),
        )
        assert len(samples) == count
        for sample in samples:
            depth = sample['gt_depth_map']
            assert depth.shape == sample['img'].shape[:2]
            assert 0 < depth.max() <= 10.0
            assert sample['category_id'] >= 0, 'scene name not recognised by NYUDataset'


def test_mmdet_reads_coco(demo):
    require('mmdet.models')
    from mmcv.transforms import LoadImageFromFile
    from mmdet.datasets import CocoDataset
    from mmdet.datasets.transforms import LoadAnnotations

    for split in ('train', 'val'):
        ann_file = demo / 'coco' / 'annotations' / f'instances_{split}2017.json'
        doc = json.loads(ann_file.read_text())
        classes = tuple(c['name'] for c in doc['categories'])
        dataset = CocoDataset(
            data_root=str(demo / 'coco'),
            ann_file=f'annotations/instances_{split}2017.json',
            data_prefix=dict(img=f'{split}2017/'),
            metainfo=dict(classes=classes),
            pipeline=[LoadImageFromFile(), LoadAnnotations(with_bbox=True, with_mask=True)],
        )
        assert len(dataset) == len(doc['images'])
        for index in range(len(dataset)):
            sample = dataset[index]
            height, width = sample['img'].shape[:2]
            anns = [a for a in doc['annotations'] if a['image_id'] == sample['img_id']]
            assert len(sample['gt_bboxes']) == len(anns)
            assert sample['gt_masks'].masks.shape == (len(anns), height, width)
            assert set(sample['gt_bboxes_labels'].tolist()) <= set(range(len(classes)))
            boxes = sample['gt_bboxes'].numpy()
            assert (boxes[:, :2] >= 0).all()
            assert (boxes[:, 2] <= width).all() and (boxes[:, 3] <= height).all()
            for box, mask in zip(boxes, sample['gt_masks'].masks):
                rows, cols = np.nonzero(mask)  # rasterised by pycocotools from the polygons
                assert [cols.min(), rows.min(), cols.max() + 1, rows.max() + 1] == box.tolist()
