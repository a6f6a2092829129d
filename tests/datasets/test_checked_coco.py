"""Bad COCO input: a missing image is an error naming it; a box of negative size is dropped
with a warning naming its image, and the sample still trains the demo model."""

import json
import logging
import re

import pytest
import torch
from mmdet.registry import DATASETS, MODELS
from mmengine.config import Config
from mmengine.dataset import pseudo_collate
from mmengine.registry import DefaultScope
from PIL import Image

import vitspec  # noqa: F401  (registers)
import vitspec.datasets.checked_coco as checked_coco
from tests.utils import ROOT
from vitspec.errors import DataFileError

DEMO = 'configs/demo/mask-rcnn_specvit-tiny-p8_simplefpn_2xb4-800it_demo-coco-160x160.py'
SQUARE = [[10, 10, 50, 10, 50, 50, 10, 50]]


def write_coco(root, boxes_by_image, missing=()):
    """A COCO-layout folder with one 64x64 image per entry (except ``missing``) and one
    'person' instance per box."""
    (root / 'images').mkdir(parents=True)
    images, anns = [], []
    for img_id, (name, boxes) in enumerate(boxes_by_image.items(), 1):
        if name not in missing:
            Image.new('RGB', (64, 64), (img_id * 40, 90, 30)).save(root / 'images' / name)
        images.append(dict(id=img_id, file_name=name, width=64, height=64))
        for box in boxes:
            anns.append(
                dict(
                    id=len(anns) + 1,
                    image_id=img_id,
                    category_id=1,
                    bbox=box,
                    area=1600.0,
                    iscrowd=0,
                    segmentation=SQUARE,
                )
            )
    (root / 'ann.json').write_text(
        json.dumps(dict(images=images, annotations=anns, categories=[dict(id=1, name='person')]))
    )


def build_dataset(root, split='train', **options):
    cfg = Config.fromfile(ROOT / DEMO)
    dataset = cfg[f'{split}_dataloader'].dataset
    dataset.update(
        data_root=str(root),
        ann_file='ann.json',
        data_prefix=dict(img='images/'),
        metainfo=dict(classes=('person',)),
        **options,
    )
    with DefaultScope.overwrite_default_scope('mmdet'):
        return DATASETS.build(dataset)


def demo_loss(samples):
    """The demo Mask R-CNN's training loss on these samples."""
    cfg = Config.fromfile(ROOT / DEMO)
    with DefaultScope.overwrite_default_scope('mmdet'):
        model = MODELS.build(cfg.model)
    model.init_weights()
    batch = model.data_preprocessor(pseudo_collate(samples), True)
    return model.parse_losses(model(**batch, mode='loss'))


def test_missing_image_is_an_error_naming_it(tmp_path):
    write_coco(
        tmp_path,
        {'here.jpg': [[10, 10, 40, 40]], 'gone.jpg': [[5, 5, 20, 20]]},
        missing={'gone.jpg'},
    )
    with pytest.raises(DataFileError, match=r'1 images that are not on disk: .*gone\.jpg'):
        build_dataset(tmp_path)


def test_negative_box_is_dropped_with_a_warning_naming_the_image(tmp_path, monkeypatch):
    logged = []
    monkeypatch.setattr(checked_coco, 'print_log', lambda msg, **kw: logged.append(msg))
    write_coco(
        tmp_path, {'good.jpg': [[10, 10, 40, 40]], 'bad.jpg': [[10, 10, 40, 40], [30, 30, -20, 25]]}
    )
    dataset = build_dataset(tmp_path)
    assert len(logged) == 1
    assert 'bad.jpg (annotation 3, bbox [30, 30, -20, 25]: non-positive width' in logged[0]
    assert 'good.jpg' not in logged[0]
    bad = next(
        i for i in range(len(dataset)) if dataset.get_data_info(i)['img_path'].endswith('bad.jpg')
    )
    assert [inst['bbox'] for inst in dataset.get_data_info(bad)['instances']] == [[10, 10, 50, 50]]

    loss, _ = demo_loss([dataset[bad], dataset[1 - bad]])
    assert torch.isfinite(loss)


def test_image_left_without_valid_boxes_trains_as_background(tmp_path, monkeypatch):
    monkeypatch.setattr(checked_coco, 'print_log', lambda msg, **kw: None)
    write_coco(tmp_path, {'good.jpg': [[10, 10, 40, 40]], 'bad.jpg': [[30, 30, 0, -5]]})
    dataset = build_dataset(tmp_path)
    bad = dataset[1]
    assert bad['data_samples'].img_path.endswith('bad.jpg')
    assert len(bad['data_samples'].gt_instances) == 0
    loss, _ = demo_loss([bad])
    assert torch.isfinite(loss)


def rewrite_annotations(root, change):
    """Apply ``change`` to the decoded ann.json of ``root`` and write it back."""
    content = json.loads((root / 'ann.json').read_text())
    change(content)
    (root / 'ann.json').write_text(json.dumps(content))


@pytest.mark.parametrize(
    'text, problem',
    [
        ('', 'is empty'),
        ('  \n', 'is empty'),
        ('{"images": [', 'is not valid JSON'),
        ('{}', "has no 'images', 'annotations', 'categories'"),
        ('[]', 'is not a JSON object with COCO fields'),
        ('{"images": [], "annotations": []}', "has no 'categories'"),
        ('{"images": {}, "annotations": [], "categories": []}', "'images' must be a list"),
    ],
)
def test_malformed_annotation_file_is_an_error_naming_it(tmp_path, text, problem):
    write_coco(tmp_path, {'here.jpg': [[10, 10, 40, 40]]})
    (tmp_path / 'ann.json').write_text(text)
    with pytest.raises(DataFileError, match=re.escape(f'{tmp_path}/ann.json {problem}')):
        build_dataset(tmp_path)


def test_image_info_file_without_annotations_loads_in_test_mode_only(tmp_path):
    write_coco(tmp_path, {'here.jpg': [[10, 10, 40, 40]]})
    rewrite_annotations(tmp_path, lambda content: content.pop('annotations'))
    assert len(build_dataset(tmp_path, 'test')) == 1
    with pytest.raises(DataFileError, match="ann.json has no 'annotations'"):
        build_dataset(tmp_path)


def set_category(content, ann_ids, category_id):
    for ann in content['annotations']:
        if ann['id'] in ann_ids:
            ann['category_id'] = category_id


def test_few_annotations_of_unknown_category_are_dropped_with_a_warning(tmp_path, monkeypatch):
    logged = []
    monkeypatch.setattr(checked_coco, 'print_log', lambda msg, **kw: logged.append((msg, kw)))
    write_coco(tmp_path, {'many.jpg': [[1 + i % 40, 1 + i // 40, 20, 20] for i in range(150)]})
    rewrite_annotations(tmp_path, lambda content: set_category(content, {7}, 12))
    dataset = build_dataset(tmp_path)
    assert len(dataset.get_data_info(0)['instances']) == 149
    [(message, kw)] = logged
    assert kw['level'] == logging.WARNING
    assert message.startswith(f'{tmp_path}/ann.json: 1 of 150 annotations have a category_id')
    assert 'many.jpg (annotation 7, category_id 12)' in message


def test_more_than_one_percent_of_unknown_categories_is_an_error(tmp_path):
    write_coco(tmp_path, {'a.jpg': [[10, 10, 40, 40]] * 60, 'b.jpg': [[5, 5, 20, 20]] * 40})
    rewrite_annotations(tmp_path, lambda content: set_category(content, {3, 70}, 5))
    with pytest.raises(DataFileError, match=r'ann\.json: 2 of 100 annotations .* more than 1%'):
        build_dataset(tmp_path)
    rewrite_annotations(tmp_path, lambda content: content.update(categories=[]))
    with pytest.raises(DataFileError, match=r'100 of 100 annotations .*a\.jpg \(annotation 1'):
        build_dataset(tmp_path)


def test_annotations_of_categories_outside_the_classes_are_counted(tmp_path, monkeypatch):
    logged = []
    monkeypatch.setattr(checked_coco, 'print_log', lambda msg, **kw: logged.append((msg, kw)))
    write_coco(tmp_path, {'a.jpg': [[10, 10, 40, 40], [5, 5, 20, 20], [1, 1, 9, 9]]})

    def add_car(content):
        content['categories'].append(dict(id=3, name='car'))
        set_category(content, {2, 3}, 3)

    rewrite_annotations(tmp_path, add_car)
    dataset = build_dataset(tmp_path)
    assert len(dataset.get_data_info(0)['instances']) == 1
    assert logged == [
        (
            f'{tmp_path}/ann.json: 2 annotations of categories outside the configured classes '
            f'are not used',
            dict(logger='current', level=logging.INFO),
        )
    ]


def test_metainfo_names_the_annotation_file(tmp_path):
    write_coco(tmp_path, {'a.jpg': [[10, 10, 40, 40]]})
    assert build_dataset(tmp_path, 'val').metainfo['ann_file'] == f'{tmp_path}/ann.json'


def test_dropped_annotations_are_logged_through_mmengine(tmp_path):
    """The real logger, not a stand-in: logging takes levels as numbers, not names."""
    write_coco(tmp_path, {'a.jpg': [[10, 10, 40, 40]] * 150 + [[30, 30, -20, 25]]})
    rewrite_annotations(tmp_path, lambda content: set_category(content, {1}, 9))
    assert len(build_dataset(tmp_path).get_data_info(0)['instances']) == 149


def rename_person(content, name='human'):
    content['categories'] = [dict(id=1, name=name), dict(id=2, name='car')]


@pytest.mark.parametrize('split', ['train', 'test'])
def test_a_class_renamed_in_the_file_names_the_classes_of_both(tmp_path, split):
    """mmdet took the renamed class for absent: an IndexError in results2json after the test,
    or, with no name in common, 'a dataset is empty'."""
    write_coco(tmp_path, {'a.jpg': [[10, 10, 40, 40]]})
    rewrite_annotations(tmp_path, rename_person)
    with pytest.raises(DataFileError) as info:
        build_dataset(tmp_path, split)
    assert str(info.value) == (
        f'COCO annotation file {tmp_path}/ann.json: 1 of the 1 classes of the config '
        f"(metainfo.classes) are not category names of the file: 'person'. Classes of the "
        f"config: ['person']; categories of the file: ['human', 'car']. Make the names the "
        f"same (the config's metainfo=dict(classes=...) of the dataset and its evaluator, or the "
        f"file's categories)."
    )


def test_a_close_name_is_suggested(tmp_path):
    write_coco(tmp_path, {'a.jpg': [[10, 10, 40, 40]]})
    rewrite_annotations(tmp_path, lambda content: rename_person(content, 'persons'))
    with pytest.raises(
        DataFileError,
        match=r"'person'\. Closest names in the file: 'person' -> 'persons'\. Classes",
    ):
        build_dataset(tmp_path)
