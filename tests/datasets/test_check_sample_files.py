"""CheckSampleFiles in the configs' real pipelines: a bad file stops the pipeline with an error
naming it the first time its sample is read; a sample read again, unchanged, or recorded by the
data check, is not read by the checks; an image given to an inferencer passes through."""

import re
import shutil

import numpy as np
import pytest
from mmengine.config import Config
from mmengine.registry import DefaultScope
from mmseg.registry import DATASETS, TRANSFORMS
from PIL import Image

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT, make_demo_data, run_tool
from vitspec.config.component_keys import component_errors
from vitspec.datasets import check_sample_files
from vitspec.datasets.check_record import default_record_path, sample_key, write_record
from vitspec.errors import DataFileError

ADE = ROOT / 'configs/ade20k/linear_vit-s14-dinov2_bnhead_8xb2-40k_ade20k-512x512.py'


@pytest.fixture(scope='module')
def ade_demo(tmp_path_factory):
    return make_demo_data(tmp_path_factory.mktemp('demo'), 'ade20k', 2, 1)


@pytest.fixture
def ade_root(ade_demo, tmp_path):
    """A copy of its own for each test, which breaks files in it."""
    return shutil.copytree(ade_demo, tmp_path / ade_demo.name)


@pytest.fixture
def check_calls(monkeypatch):
    """The samples check_sample was called on, by the pipeline's CheckSampleFiles."""
    calls = []
    real = check_sample_files.check_sample

    def spy(info, checks):
        calls.append(info['img_path'])
        return real(info, checks)

    monkeypatch.setattr(check_sample_files, 'check_sample', spy)
    return calls


def first_train_sample(root):
    """(dataset built from the ADE20K config's train split, image path, label path)"""
    cfg = Config.fromfile(ADE)
    cfg.train_dataloader.dataset.data_root = str(root)
    with DefaultScope.overwrite_default_scope('mmseg'):
        dataset = DATASETS.build(cfg.train_dataloader.dataset)
    info = dataset.get_data_info(0)
    return dataset, info['img_path'], info['seg_map_path']


def load(dataset):
    with DefaultScope.overwrite_default_scope('mmseg'):
        return dataset[0]


def checker(dataset):
    (step,) = [t for t in dataset.pipeline.transforms if type(t).__name__ == 'CheckSampleFiles']
    return step


def plant_label_value(label, value=151, dtype=np.uint8):
    seg = np.asarray(Image.open(label)).astype(dtype)
    seg[:4, :4] = value  # uint16: mmseg's uint8 cast would turn 300 into a valid 44
    Image.fromarray(seg).save(label)


def test_pipelines_start_with_mmcv_s_loader_then_the_checks(ade_root):
    dataset, _, _ = first_train_sample(ade_root)
    names = [type(t).__name__ for t in dataset.pipeline.transforms]
    assert names[:3] == ['LoadImageFromFile', 'CheckSampleFiles', 'LoadAnnotations']
    assert load(dataset)['inputs'].shape[0] == 3


@pytest.mark.parametrize('value, dtype', [(151, np.uint8), (300, np.uint16)])
def test_a_planted_bad_label_is_found_the_first_time(ade_root, value, dtype, check_calls):
    dataset, image, label = first_train_sample(ade_root)
    plant_label_value(label, value, dtype)
    expected = rf'{re.escape(label)} has label values \[{value}\] outside 0\.\.150'
    with pytest.raises(DataFileError, match=expected):
        load(dataset)
    assert check_calls == [image]


def test_a_sample_read_again_is_not_checked_again(ade_root, check_calls):
    dataset, image, _ = first_train_sample(ade_root)
    for _ in range(3):
        load(dataset)
    assert check_calls == [image]


def test_a_sample_changed_on_disk_is_checked_again_by_the_next_run(ade_root, check_calls):
    dataset, image, label = first_train_sample(ade_root)
    load(dataset)
    plant_label_value(label)  # rewritten: a new modification time
    load(dataset)  # within a run, a sample is checked once
    assert check_calls == [image]
    dataset, _, _ = first_train_sample(ade_root)
    with pytest.raises(DataFileError, match=re.escape(label)):
        load(dataset)
    assert check_calls == [image, image]


def test_a_recorded_sample_is_not_read_by_the_checks(ade_root, check_calls):
    dataset, _, label = first_train_sample(ade_root)
    checks = checker(dataset).checks
    write_record(default_record_path(checks), [sample_key(dataset.get_data_info(0), checks)])
    load(dataset)
    assert check_calls == []
    plant_label_value(label)  # changed since the record: the next run checks it
    dataset, _, _ = first_train_sample(ade_root)
    with pytest.raises(DataFileError, match=re.escape(label)):
        load(dataset)
    assert len(check_calls) == 1


def test_an_inferencer_s_image_passes_through(ade_root, check_calls):
    dataset, image, _ = first_train_sample(ade_root)
    step = checker(dataset)
    by_path = dict(img_path=image, img=np.zeros((2, 2, 3), np.uint8))
    assert step(dict(by_path)) == by_path
    as_array = dict(img=np.zeros((2, 2, 3), np.uint8), img_path=None)
    assert step(as_array) is as_array
    assert check_calls == []


def test_an_unknown_option_is_refused():
    with pytest.raises(TypeError, match='num_clases'):
        TRANSFORMS.build(dict(type='CheckSampleFiles', num_clases=3))
    cfg = Config.fromfile(ADE)
    cfg.train_dataloader.dataset.pipeline[1]['num_clases'] = 3
    assert [
        'train_dataloader.dataset.pipeline.1.num_clases: CheckSampleFiles has no option '
        "'num_clases'; did you mean 'num_classes'?"
    ] == [e for e in component_errors(cfg, 'mmseg') if 'clases' in e]


def test_an_undecodable_image_is_named_by_mmcv_s_loader(ade_root):
    dataset, image, _ = first_train_sample(ade_root)
    with open(image, 'r+b') as f:
        f.write(b'not a jpeg' * 10)
    with pytest.raises(AssertionError, match=re.escape(f'failed to load image: {image}')):
        load(dataset)


def test_a_missing_image_is_named_by_mmcv_s_loader(ade_root):
    dataset, image, _ = first_train_sample(ade_root)
    (ade_root / image).unlink()
    with pytest.raises(FileNotFoundError, match=re.escape(image)):
        load(dataset)


def test_a_missing_annotation_is_named_with_its_image(ade_root):
    dataset, image, label = first_train_sample(ade_root)
    (ade_root / label).unlink()
    expected = re.escape(f'annotation not found: {label} (image: {image})')
    with pytest.raises(DataFileError, match=expected):
        load(dataset)


@pytest.mark.parametrize(
    'height, width, reason',
    [(1, 300, 'a side is shorter than 3 pixels'), (4, 300, 'its aspect ratio exceeds 64')],
)
def test_degenerate_image_is_named_with_its_size(ade_root, height, width, reason):
    dataset, image, _ = first_train_sample(ade_root)
    Image.fromarray(np.zeros((height, width, 3), np.uint8)).save(image)
    expected = f'image {image} is {width}x{height}: {reason}'
    with pytest.raises(DataFileError, match=re.escape(expected)):
        load(dataset)


def test_smallest_image_loads(ade_root):
    dataset, image, label = first_train_sample(ade_root)
    Image.fromarray(np.zeros((3, 192, 3), np.uint8)).save(image)
    Image.fromarray(np.ones((3, 192), np.uint8)).save(label)
    assert load(dataset)['inputs'].shape[0] == 3


@pytest.mark.slow
def test_empty_dataset_directory_is_named(tmp_path):
    root = tmp_path / 'ADEChallengeData2016'
    for sub in (
        'images/training',
        'annotations/training',
        'images/validation',
        'annotations/validation',
    ):
        (root / sub).mkdir(parents=True)
    config = ROOT / 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
    proc = run_tool(
        [
            'tools/train.py',
            config,
            '--work-dir',
            tmp_path / 'w',
            '--cfg-options',
            f'train_dataloader.dataset.data_root={root}',
            f'val_dataloader.dataset.data_root={root}',
        ],
        check=False,
        timeout=300,
    )
    assert proc.returncode != 0
    assert f"a dataset is empty: no samples found under {{'train': '{root}'" in proc.stderr
