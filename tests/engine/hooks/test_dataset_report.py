"""The log of a run's start names, per split, the dataset, its sample count, its folders and
files, the ground truth each evaluator reads, and the files its folders hold that it did not
take; no such warning on the real samples."""

import logging
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from mmdet.registry import DATASETS as DET_DATASETS
from mmengine.config import Config
from mmengine.dataset import ConcatDataset, RepeatDataset
from mmengine.evaluator import Evaluator
from mmengine.registry import DefaultScope
from mmseg.registry import DATASETS as SEG_DATASETS
from PIL import Image

import vitspec  # noqa: F401  (registers)
import vitspec.engine.hooks.dataset_report as dataset_report
from tests.datasets.test_checked_coco import write_coco
from tests.utils import ROOT
from vitspec.datasets.untaken_files import untaken_files
from vitspec.engine import DatasetReportHook

CONFIGS = sorted(p.relative_to(ROOT) for p in (ROOT / 'configs').glob('[!_]*/*.py'))


@pytest.fixture
def logged(monkeypatch):
    lines = []

    def record(msg, logger, level):
        assert isinstance(level, int)  # logging's levels: a name is a TypeError there
        lines.append((logging.getLevelName(level), msg))

    monkeypatch.setattr(dataset_report, 'print_log', record)
    return lines


def write_image(path: Path, mode='RGB'):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.zeros((8, 8, 3) if mode == 'RGB' else (8, 8), np.uint8)).save(
        path, format='JPEG' if mode == 'RGB' else 'PNG'
    )


def seg_folders(root: Path):
    """a, e: samples (e without label); b.JPG: wrong case; c.jpg/: a folder; d.png: a label
    without image; notes.txt: not an image; .DS_Store: hidden, ignored as mmseg ignores it."""
    for name in ('a.jpg', 'e.jpg', 'b.JPG', 'c.jpg/inner.png', 'notes.txt', '.DS_Store'):
        write_image(root / 'img' / name)
    for name in ('a.png', 'b.png', 'd.png', 'a_color.bmp'):
        write_image(root / 'ann' / name, mode='L')


def build(registry, scope, **cfg):
    with DefaultScope.overwrite_default_scope(scope):
        return registry.build(dict(pipeline=[], **cfg))


def seg_dataset(root, **kw):
    return build(
        SEG_DATASETS,
        'mmseg',
        type='BaseSegDataset',
        data_root=str(root),
        data_prefix=dict(img_path='img', seg_map_path='ann'),
        img_suffix='.jpg',
        seg_map_suffix='.png',
        metainfo=dict(classes=('a', 'b')),
        **kw,
    )


def loop_of(dataset, evaluator=None):
    return SimpleNamespace(dataloader=SimpleNamespace(dataset=dataset), evaluator=evaluator)


def runner_of(dataset, evaluator=None):
    """A runner whose val and test loops read ``dataset``."""
    loop = loop_of(dataset, evaluator)
    return SimpleNamespace(val_loop=loop, test_loop=loop)


def training_runner(dataset, val_loop=None):
    return SimpleNamespace(train_dataloader=SimpleNamespace(dataset=dataset), val_loop=val_loop)


def test_seg_folders_report_what_mmseg_did_not_take(tmp_path, logged):
    seg_folders(tmp_path)
    dataset = seg_dataset(tmp_path)
    DatasetReportHook().before_train(training_runner(dataset))
    img, ann = f'{tmp_path}/img', f'{tmp_path}/ann'
    assert logged == [
        (
            'INFO',
            f'train split: BaseSegDataset, 2 samples; data_root {tmp_path}; data_prefix '
            f"{{'img_path': '{img}', 'seg_map_path': '{ann}'}}",
        ),
        (
            'WARNING',
            f'train split: 4 entries not taken as images in {img}: b.JPG (not *.jpg), '
            'c.jpg/ (a folder), c.jpg/inner.png (not *.jpg), notes.txt (not *.jpg)',
        ),
        (
            'WARNING',
            f'train split: 2 label files without a sample in {ann}: b.png (no image), '
            'd.png (no image)',
        ),
        ('WARNING', f'train split: 1 images without their label in {img}: e.jpg (no e.png)'),
    ]


def test_report_is_logged_once_per_split_and_names_the_label_folder(tmp_path, logged):
    seg_folders(tmp_path)
    dataset = seg_dataset(tmp_path)
    with DefaultScope.overwrite_default_scope('mmseg'):
        evaluator = Evaluator(dict(type='IoUMetric'))
    hook = DatasetReportHook()
    for _ in range(2):
        hook.before_val(runner_of(dataset, evaluator))
    assert len(logged) == 5
    assert logged[-1] == (
        'INFO',
        f'val split: IoUMetric reads the seg_map_path files of the dataset under {tmp_path}/ann',
    )
    hook.before_test(runner_of(dataset, evaluator))
    assert len(logged) == 10 and logged[5][1].startswith('test split: BaseSegDataset, 2 samples')


def test_training_reports_the_val_split_at_its_start(tmp_path, logged):
    seg_folders(tmp_path)
    dataset = seg_dataset(tmp_path)
    with DefaultScope.overwrite_default_scope('mmseg'):
        evaluator = Evaluator(dict(type='IoUMetric'))
    hook = DatasetReportHook()
    hook.before_train(training_runner(dataset, loop_of(dataset, evaluator)))
    assert [msg.split(' split: ')[0] for _, msg in logged] == ['train'] * 4 + ['val'] * 5
    hook.before_val(runner_of(dataset, evaluator))
    assert len(logged) == 9


def test_each_dataset_of_a_concatenation_is_reported(tmp_path, logged):
    seg_folders(tmp_path / 'one')
    write_image(tmp_path / 'two' / 'img' / 'z.jpg')
    write_image(tmp_path / 'two' / 'ann' / 'z.png', mode='L')
    concat = ConcatDataset([seg_dataset(tmp_path / 'one'), seg_dataset(tmp_path / 'two')])
    DatasetReportHook().before_train(training_runner(concat))
    described = [msg for _, msg in logged if 'samples;' in msg]
    assert len(described) == 2
    assert f'BaseSegDataset, 2 samples; data_root {tmp_path}/one' in described[0]
    assert f'1 samples; data_root {tmp_path}/two' in described[1]
    assert len(logged) == 5  # the first one's three warnings, none for the second
    DatasetReportHook().before_train(
        training_runner(RepeatDataset(seg_dataset(tmp_path / 'two'), times=3))
    )
    assert f'train split: BaseSegDataset, 1 samples; data_root {tmp_path}/two' in logged[5][1]


def test_long_lists_show_the_count_and_the_first_names(tmp_path, logged):
    for i in range(8):
        write_image(tmp_path / 'img' / f'{i}.JPG')
    write_image(tmp_path / 'img' / 'ok.jpg')
    dataset = seg_dataset(tmp_path)
    DatasetReportHook().before_train(training_runner(dataset))
    assert logged[1][1].endswith(
        'train split: 8 entries not taken as images in '
        f'{tmp_path}/img: 0.JPG (not *.jpg), 1.JPG (not *.jpg), 2.JPG (not *.jpg), '
        '3.JPG (not *.jpg), 4.JPG (not *.jpg), ... and 3 more'
    )


def test_selected_and_remote_datasets_are_not_walked(tmp_path):
    seg_folders(tmp_path)
    (tmp_path / 'split.txt').write_text('a\n')
    assert len(untaken_files(seg_dataset(tmp_path))) == 3
    assert untaken_files(seg_dataset(tmp_path, ann_file='split.txt')) == []
    assert untaken_files(seg_dataset(tmp_path, indices=1)) == []
    remote = SimpleNamespace(
        data_prefix=dict(img_path='http://example.com/img', seg_map_path='http://example.com/a'),
        img_suffix='.jpg',
        ann_file='',
    )
    assert untaken_files(remote) == []


def test_depth_folders_report_a_depth_map_without_image(tmp_path, logged):
    write_image(tmp_path / 'images' / 'kitchen_0001_00001.jpg')
    write_image(tmp_path / 'images' / 'kitchen_0001_00002.jpeg')
    write_image(tmp_path / 'annotations' / 'kitchen_0001_00001.png', mode='L')
    write_image(tmp_path / 'annotations' / 'kitchen_0001_00002.png', mode='L')
    dataset = build(
        SEG_DATASETS,
        'mmseg',
        type='NYUDataset',
        data_root=str(tmp_path),
        data_prefix=dict(img_path='images', depth_map_path='annotations'),
    )
    with DefaultScope.overwrite_default_scope('mmseg'):
        evaluator = Evaluator(dict(type='DepthErrorMetric'))
    DatasetReportHook().before_val(runner_of(dataset, evaluator))
    levels, messages = zip(*logged)
    assert levels == ('INFO', 'WARNING', 'WARNING', 'INFO')
    assert messages[0].startswith('val split: NYUDataset, 1 samples;')
    assert messages[1].endswith(
        f'1 entries not taken as images in {tmp_path}/images: kitchen_0001_00002.jpeg (not *.jpg)'
    )
    assert messages[2].endswith(f'in {tmp_path}/annotations: kitchen_0001_00002.png (no image)')
    assert messages[3].endswith(
        f'the depth_map_path files of the dataset under {tmp_path}/annotations'
    )


def coco_dataset(root, split='train', ann_file='ann.json', img='images/'):
    cfg = Config.fromfile(
        ROOT / 'configs/demo/mask-rcnn_specvit-tiny-p8_simplefpn_2xb4-800it_demo-coco-160x160.py'
    )
    dataset = cfg[f'{split}_dataloader'].dataset
    dataset.update(
        data_root=str(root),
        ann_file=ann_file,
        data_prefix=dict(img=img),
        metainfo=dict(classes=('person',)),
    )
    with DefaultScope.overwrite_default_scope('mmdet'):
        return DET_DATASETS.build(dataset), Evaluator(cfg.val_evaluator)


def test_coco_images_the_file_does_not_list_are_counted(tmp_path, logged):
    """'empty.jpg' is listed without annotations: train mode leaves it out of the samples, but
    the file references it; 'stray.jpg' the file does not list."""
    write_coco(tmp_path, {'a.jpg': [[10, 10, 40, 40]], 'empty.jpg': []})
    write_image(tmp_path / 'images' / 'stray.jpg')
    dataset, _ = coco_dataset(tmp_path)
    assert len(dataset) == 1
    DatasetReportHook().before_train(training_runner(dataset))
    assert logged[1] == (
        'INFO',
        f'train split: 1 images not referenced by the annotation file in {tmp_path}/images/: '
        'stray.jpg (not in ann.json)',
    )


def test_coco_evaluator_names_the_annotation_file_it_reads(tmp_path, logged):
    write_coco(tmp_path, {'a.jpg': [[10, 10, 40, 40]]})
    dataset, evaluator = coco_dataset(tmp_path, 'val')
    evaluator.dataset_meta = dataset.metainfo  # as the loop does before its hooks
    DatasetReportHook().before_val(runner_of(dataset, evaluator))
    assert logged == [
        (
            'INFO',
            f'val split: CheckedCocoDataset, 1 samples; data_root {tmp_path}; data_prefix '
            f"{{'img': '{tmp_path}/images/'}}; ann_file {tmp_path}/ann.json",
        ),
        ('INFO', f'val split: DatasetCocoMetric reads {tmp_path}/ann.json'),
    ]


def test_real_samples_give_no_warning(realdata, logged):
    ade = realdata / 'ade20k' / 'ADEChallengeData2016'
    dataset = build(
        SEG_DATASETS,
        'mmseg',
        type='ADE20KDataset',
        data_root=str(ade),
        data_prefix=dict(img_path='images/validation', seg_map_path='annotations/validation'),
    )
    coco, _ = coco_dataset(
        realdata / 'coco', ann_file='annotations/instances_train2017.json', img='train2017/'
    )
    hook = DatasetReportHook()
    hook.before_train(training_runner(coco))
    hook.before_val(runner_of(dataset))
    assert [level for level, _ in logged] == ['INFO', 'INFO']
    assert 'ADE20KDataset, 3 samples' in logged[1][1]


@pytest.mark.parametrize('path', CONFIGS, ids=str)
def test_every_config_reports_its_datasets(path):
    cfg = Config.fromfile(ROOT / path)
    assert 'DatasetReportHook' in [h['type'] for h in cfg.custom_hooks]
