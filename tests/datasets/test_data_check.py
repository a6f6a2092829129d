"""The data check before a run: the real samples of ADE20K, Cityscapes, COCO, NYU and KITTI pass
through the configs' own datasets and checks; every damage planted in copies of them is found and
named with its reason, in one process or several; the samples that passed are recorded where the
pipeline's CheckSampleFiles finds them."""

import json
import shutil

import numpy as np
import pytest
from mmengine.config import ConfigDict
from mmengine.registry import DATASETS, TRANSFORMS, DefaultScope
from PIL import Image

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT, make_demo_data
from vitspec.config.cfg_options import merge_cfg_options
from vitspec.config.load import load_config
from vitspec.datasets import check_sample_files
from vitspec.datasets.check_record import load_record, sample_key
from vitspec.datasets.checked_coco_panoptic import PNGS_DECODED
from vitspec.datasets.data_check import (
    check_chunk,
    check_data,
    find_check_transform,
    format_report,
    leaf_datasets,
    split_datasets,
)
from vitspec.datasets.file_checks import SampleChecks
from vitspec.errors import ConfigError

ADE = ROOT / 'configs/ade20k/linear_vit-s14-dinov2_bnhead_8xb2-40k_ade20k-512x512.py'
CITYSCAPES = (
    ROOT / 'configs/cityscapes/linear_vit-s14-dinov2_bnhead_8xb2-40k_cityscapes-512x1024.py'
)
COCO = ROOT / 'configs/coco/mask-rcnn_vit-b16-mae_simplefpn_16xb4-amp-lsj-100e_coco-1024x1024.py'
NYU = ROOT / 'configs/nyu/lin4_vit-s14-dinov2_8xb2-38k_nyu-416x544.py'
KITTI = ROOT / 'configs/kitti/lin4_vit-s14-dinov2_8xb2-38k_kitti-352x704.py'
PANOPTIC = ROOT / 'configs/demo/eomt_specvit-tiny-p8_2xb4-500it_demo-coco-panoptic-128x128.py'
VOC = ROOT / 'configs/voc/linear_vit-s14-dinov2_bnhead_8xb2-40k_voc12aug-512x512.py'


def config(path, **options):
    cfg = load_config(str(path))
    merge_cfg_options(cfg, options)
    return cfg


def ade(root):
    return config(ADE, data_root=str(root))


def coco(root, ann='annotations/instances_train2017.json'):
    return config(COCO, data_root=f'{root}/', **{'train_dataloader.dataset.ann_file': ann})


def nyu(root):
    prefix = 'val_dataloader.dataset.data_prefix'
    return config(
        NYU,
        data_root=str(root),
        **{f'{prefix}.img_path': 'images', f'{prefix}.depth_map_path': 'annotations'},
    )


def kitti(root):
    return config(
        KITTI,
        data_root=str(root),
        **{
            'val_dataloader.dataset.ann_file': str(
                root / 'derived/kitti_tiny_eigen_style_files.txt'
            ),
            'val_dataloader.dataset.data_prefix.img_path': str(root / 'KITTI_tiny'),
            'val_dataloader.dataset.data_prefix.depth_map_path': str(root / 'derived'),
        },
    )


def reasons(report):
    return sorted(b.reason for s in report.splits for b in s.bad)


@pytest.mark.parametrize(
    'make, sub, split, samples, unit',
    [
        (ade, 'ade20k/ADEChallengeData2016', 'val', 3, 'pixels'),
        (lambda r: config(CITYSCAPES, data_root=str(r)), 'cityscapes', 'val', 1, 'pixels'),
        (coco, 'coco', 'train', 16, 'instances'),
        (nyu, 'nyu', 'val', 1, None),
        (kitti, 'kitti', 'val', 7, None),
    ],
    ids=['ade20k', 'cityscapes', 'coco', 'nyu', 'kitti'],
)
def test_real_samples_pass_and_are_recorded(realdata, make, sub, split, samples, unit):
    cfg = make(realdata / sub)
    report = check_data(cfg, [split], jobs=1, progress=False)
    (result,) = report.splits
    assert report.clean, format_report(report)
    assert (result.samples, result.ok, result.bad, result.errors) == (samples, samples, [], [])
    if unit is None:  # depth: no classes
        assert result.counts is None
    else:
        assert result.unit == unit and result.counts.sum() > 0
        assert len(result.counts) == len(result.classes) > 1
        assert 'never seen' in format_report(report)
    (record,) = result.records
    assert len(load_record(record)) >= samples
    assert 'all samples passed' in format_report(report)


def test_the_run_takes_the_recorded_samples(realdata, monkeypatch):
    """The keys written are those the pipeline's CheckSampleFiles looks up: a sample the check
    passed is not read again to be checked by the run."""
    cfg = ade(realdata / 'ade20k/ADEChallengeData2016')
    dataset_cfg = cfg.val_dataloader.dataset
    with DefaultScope.overwrite_default_scope('mmseg'):
        infos = [dict(d) for d in DATASETS.build(dataset_cfg).data_list]
    step = ConfigDict(find_check_transform(dataset_cfg.pipeline))
    with DefaultScope.overwrite_default_scope('mmseg'):
        before = TRANSFORMS.build(step)
    assert not any(sample_key(i, before.checks) in before.checked for i in infos)
    check_data(cfg, ['val'], jobs=1, progress=False)

    def not_again(info, checks):
        raise AssertionError(f'checked again: {info["img_path"]}')

    monkeypatch.setattr(check_sample_files, 'check_sample', not_again)
    with DefaultScope.overwrite_default_scope('mmseg'):
        after = TRANSFORMS.build(step)  # a run's transform, started after the check
    for info in infos:
        assert after.transform(dict(info))['img_path'] == info['img_path']


@pytest.fixture
def damaged_ade(realdata, tmp_path):
    """A copy of the ADE20K sample with four damaged samples, and the damage of each."""
    root = tmp_path / 'ADEChallengeData2016'
    shutil.copytree(realdata / 'ade20k/ADEChallengeData2016', root)
    images, labels = root / 'images/validation', root / 'annotations/validation'
    data = (images / 'ADE_val_00000001.jpg').read_bytes()
    (images / 'ADE_val_00000001.jpg').write_bytes(data[: len(data) // 2])
    label = np.asarray(Image.open(labels / 'ADE_val_00000002.png')).copy()
    label[:4, :4] = 200  # beyond the 150 classes (1..150 with reduce_zero_label)
    Image.fromarray(label).save(labels / 'ADE_val_00000002.png')
    label = np.asarray(Image.open(labels / 'ADE_val_00000003.png'))
    Image.fromarray(label[:-8]).save(labels / 'ADE_val_00000003.png')
    (images / 'ADE_val_00000004.jpg').write_bytes(data)  # an image without its label
    return root, {
        'ADE_val_00000001.jpg': 'cannot decode image',
        'ADE_val_00000002.png': 'label values [200] outside 0..150',
        'ADE_val_00000003.png': 'but its image',
        'ADE_val_00000004.png': 'annotation not found',
    }


def test_every_damaged_ade_sample_is_named_with_its_reason(damaged_ade):
    root, damage = damaged_ade
    report = check_data(ade(root), ['val', 'test'], jobs=1, progress=False)
    val, test = report.splits
    assert not report.clean
    assert (val.samples, val.ok, len(val.bad)) == (4, 0, 4)
    assert test.same_as == 'val'  # walked once
    for name, reason in damage.items():
        (found,) = [b.reason for b in val.bad if name in b.reason]
        assert reason in found
    text = format_report(report)
    assert all(name in text for name in damage) and 'bad files found' in text
    assert val.records == []  # none passed


def test_several_processes_find_the_same(damaged_ade):
    root, damage = damaged_ade
    one = check_data(ade(root), ['val'], jobs=1, progress=False)
    two = check_data(ade(root), ['val'], jobs=2, progress=False)
    assert reasons(one) == reasons(two) and len(reasons(two)) == len(damage)


def test_depth_in_metres_is_found(realdata, tmp_path):
    root = tmp_path / 'nyu'
    shutil.copytree(realdata / 'nyu', root)
    png = root / 'annotations/bookstore_0001d_00001.png'
    millimetres = np.asarray(Image.open(png)).astype(np.uint16)
    assert millimetres.max() > 1000
    Image.fromarray(np.round(millimetres / 1000).astype(np.uint16)).save(png)
    report = check_data(nyu(root), ['val'], jobs=1, progress=False)
    (bad,) = report.splits[0].bad
    assert str(png) in bad.reason and 'is it stored in metres?' in bad.reason
    assert str(png) in bad.files


def coco_copy(realdata, tmp_path, damage):
    """The COCO sample with its images linked and ``damage`` applied to its JSON document."""
    root = tmp_path / 'coco'
    (root / 'annotations').mkdir(parents=True)
    (root / 'train2017').symlink_to(realdata / 'coco/train2017')
    document = json.loads((realdata / 'coco/annotations/instances_train2017.json').read_text())
    damage(document)
    (root / 'annotations/instances_train2017.json').write_text(json.dumps(document))
    return root


def test_coco_box_of_no_size_is_named(realdata, tmp_path):
    def flat_box(document):
        ann = next(a for a in document['annotations'] if not a.get('iscrowd'))
        ann['bbox'][3] = 0
        flat_box.name = next(
            i['file_name'] for i in document['images'] if i['id'] == ann['image_id']
        )

    root = coco_copy(realdata, tmp_path, flat_box)
    report = check_data(coco(root), ['train'], jobs=1, progress=False)
    (train,) = report.splits
    (warning,) = [w for w in train.warnings if 'invalid boxes' in w]
    assert flat_box.name in warning and 'non-positive width or height' in warning
    assert train.ok == train.samples == 16  # the run drops the box and trains on the rest
    assert 'warning:' in format_report(report)


def test_coco_broken_polygons_stop_the_training_set(realdata, tmp_path):
    def break_polygons(document):
        for ann in [a for a in document['annotations'] if not a.get('iscrowd')][:4]:
            ann['segmentation'] = [[1.0, 2.0, 3.0, 4.0]]  # two points

    root = coco_copy(realdata, tmp_path, break_polygons)
    report = check_data(coco(root), ['train'], jobs=1, progress=False)
    (error,) = report.splits[0].errors
    assert 'instances_train2017.json' in error and 'no usable polygon' in error
    assert '2 points' in error and not report.clean


def test_coco_missing_image_is_named(realdata, tmp_path):
    def missing(document):
        document['images'][0]['file_name'] = 'absent.jpg'

    root = coco_copy(realdata, tmp_path, missing)
    report = check_data(coco(root), ['train'], jobs=1, progress=False)
    (error,) = report.splits[0].errors
    assert 'absent.jpg' in error and 'not on disk' in error


def test_panoptic_pngs_that_differ_from_their_json(tmp_path):
    """The dataset compares the first PNGS_DECODED PNGs with the JSON when it is built; the
    check reads every other one."""
    root = make_demo_data(tmp_path / 'demo', 'coco', num_train=PNGS_DECODED + 2, num_val=1)
    cfg = config(PANOPTIC, data_root=f'{root}/')
    assert check_data(cfg, ['train'], jobs=1, progress=False).clean
    document = json.loads((root / 'annotations/panoptic_train2017.json').read_text())
    pngs = []
    for entry in document['annotations'][PNGS_DECODED:]:
        png = root / 'annotations/panoptic_train2017' / entry['file_name']
        rgb = np.asarray(Image.open(png)).copy()
        r, g, b = np.moveaxis(rgb.astype(np.int64), -1, 0)
        rgb[r + 256 * g + 65536 * b == entry['segments_info'][0]['id']] = 7  # not in the JSON
        Image.fromarray(rgb).save(png)
        pngs.append(str(png))
    report = check_data(cfg, ['train'], jobs=2, progress=False)
    train = report.splits[0]
    assert (train.samples, train.ok) == (PNGS_DECODED + 2, PNGS_DECODED)
    assert sorted(b.files[1] for b in train.bad) == sorted(pngs)
    assert all('missing from the JSON: [460551]' in b.reason for b in train.bad)


def test_every_dataset_that_cannot_be_read_is_named(tmp_path):
    cfg = config(VOC, data_root=str(tmp_path / 'absent'))
    report = check_data(cfg, ['train'], jobs=1, progress=False)
    errors = report.splits[0].errors  # VOC train and SBD aug, each missing
    assert len(errors) == 2 and all('absent' in e for e in errors) and not report.clean


def test_splits_and_wrappers():
    cfg = load_config(str(VOC))
    chosen = split_datasets(cfg)
    assert list(chosen) == ['train', 'val', 'test'] and chosen['test'] == 'val'
    leaves = list(leaf_datasets(chosen['train']))  # ConcatDataset of VOC train and SBD aug
    assert len(leaves) == 2 and all(find_check_transform(d.pipeline) for d in leaves)
    assert find_check_transform(cfg.tta_pipeline)['type'] == 'CheckSampleFiles'
    with pytest.raises(ConfigError, match='no train_dataloader'):
        split_datasets(ConfigDict(val_dataloader=cfg.val_dataloader), ['train'])


def test_a_pipeline_without_the_check_is_said_and_not_recorded(realdata):
    cfg = ade(realdata / 'ade20k/ADEChallengeData2016')
    dataset = cfg.val_dataloader.dataset
    dataset.pipeline = [s for s in dataset.pipeline if s['type'] != 'CheckSampleFiles']
    report = check_data(cfg, ['val'], jobs=1, progress=False)
    (val,) = report.splits
    assert report.clean and val.ok == 3 and val.records == []
    assert 'has no CheckSampleFiles' in val.notes[0] and 'note:' in format_report(report)


def test_a_failure_the_checks_do_not_name_is_kept_with_its_sample():
    (result,) = check_chunk((SampleChecks(), 0, [(5, dict(img_path=7))]))
    index, key, counts, reason = result
    assert (index, key, counts) == (5, None, None) and reason.startswith('7: ')
