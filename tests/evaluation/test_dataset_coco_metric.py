"""The COCO evaluator scores against the annotation file of the dataset it evaluates, wherever
the config or the command line put that dataset, and refuses an evaluator file that differs."""

import json
import re

import pytest
from mmdet.registry import DATASETS
from mmengine.config import Config
from mmengine.evaluator import Evaluator
from mmengine.registry import DefaultScope

import vitspec  # noqa: F401  (registers)
import vitspec.evaluation.dataset_coco_metric as dataset_coco_metric
from tests.datasets.test_checked_coco import write_coco
from tests.datasets.test_coco_real_samples import ground_truth_as_detections
from tests.utils import ROOT
from vitspec.errors import DataFileError
from vitspec.evaluation import DatasetCocoMetric

DEMO = 'configs/demo/mask-rcnn_specvit-tiny-p8_simplefpn_2xb4-800it_demo-coco-160x160.py'
COCO = 'configs/coco/mask-rcnn_vit-b16-mae_simplefpn_16xb4-amp-lsj-100e_coco-1024x1024.py'
BOXES_A = {'a.jpg': [[10, 10, 40, 40]], 'b.jpg': [[5, 5, 20, 20]]}
BOXES_B = {'a.jpg': [[20, 24, 30, 16]], 'b.jpg': [[30, 2, 12, 50]]}


def demo_cfg(root, **evaluator):
    """The demo config with its val dataset moved to ``root`` as ``--cfg-options`` does."""
    cfg = Config.fromfile(ROOT / DEMO)
    cfg.merge_from_dict(
        {
            'val_dataloader.dataset.data_root': f'{root}/',
            'val_dataloader.dataset.ann_file': 'ann.json',
            'val_dataloader.dataset.data_prefix.img': 'images/',
            'val_dataloader.dataset.metainfo.classes': ('person',),
            'val_dataloader.dataset.pipeline': [],
            **{f'val_evaluator.{k}': v for k, v in evaluator.items()},
        }
    )
    return cfg


def evaluate(cfg, dataset=None):
    """bbox AP of ``cfg``'s evaluator on the ground truth of ``cfg``'s val dataset (or of
    ``dataset``) fed back as detections, the loops' way: metainfo first, then batches."""
    with DefaultScope.overwrite_default_scope('mmdet'):
        evaluated = DATASETS.build(cfg.val_dataloader.dataset)
        evaluator = Evaluator(cfg.val_evaluator)
    evaluator.dataset_meta = evaluated.metainfo
    samples = ground_truth_as_detections(dataset or evaluated)
    evaluator.process(samples)
    results = evaluator.evaluate(len(samples))
    return evaluator.metrics[0], results['coco/bbox_mAP']


def test_data_root_from_the_command_line_reaches_the_ground_truth(tmp_path):
    write_coco(tmp_path / 'b', BOXES_B)
    metric, ap = evaluate(demo_cfg(tmp_path / 'b'))
    assert metric.ann_file == f'{tmp_path}/b/ann.json'
    assert ap == pytest.approx(1.0)


def test_scores_against_the_evaluated_dataset_not_another(tmp_path):
    """Detections that are dataset a's ground truth score AP 1 on a, less on b."""
    write_coco(tmp_path / 'a', BOXES_A)
    write_coco(tmp_path / 'b', BOXES_B)
    with DefaultScope.overwrite_default_scope('mmdet'):
        dataset_a = DATASETS.build(demo_cfg(tmp_path / 'a').val_dataloader.dataset)
    assert evaluate(demo_cfg(tmp_path / 'a'), dataset_a)[1] == pytest.approx(1.0)
    assert evaluate(demo_cfg(tmp_path / 'b'), dataset_a)[1] < 0.5


def test_an_evaluator_file_that_is_not_the_datasets_is_refused(tmp_path):
    write_coco(tmp_path / 'a', BOXES_A)
    write_coco(tmp_path / 'b', BOXES_B)
    cfg = demo_cfg(tmp_path / 'b', ann_file=f'{tmp_path}/a/ann.json')
    a, b = (re.escape(f'{tmp_path}/{name}/ann.json') for name in 'ab')
    with pytest.raises(DataFileError, match=f'evaluator ann_file {a} .* evaluates, {b}'):
        evaluate(cfg)


def test_an_evaluator_file_naming_the_datasets_file_is_accepted(tmp_path):
    write_coco(tmp_path / 'b', BOXES_B)
    (tmp_path / 'link').symlink_to(tmp_path / 'b')
    for spelling in (f'{tmp_path}/b//ann.json', f'{tmp_path}/link/ann.json'):
        assert evaluate(demo_cfg(tmp_path / 'b', ann_file=spelling))[1] == pytest.approx(1.0)


def test_a_dataset_that_does_not_name_its_file_needs_an_explicit_one(tmp_path, monkeypatch):
    write_coco(tmp_path / 'b', BOXES_B)
    cfg = demo_cfg(tmp_path / 'b')
    cfg.val_dataloader.dataset.type = 'CocoDataset'  # mmdet's: no ann_file in its metainfo
    with pytest.raises(ValueError, match='no annotation file'):
        evaluate(cfg)
    logged = []
    monkeypatch.setattr(dataset_coco_metric, 'print_log', lambda msg, **kw: logged.append(msg))
    cfg.val_evaluator.ann_file = f'{tmp_path}/b/ann.json'
    assert evaluate(cfg)[1] == pytest.approx(1.0)
    assert logged and 'unchecked' in logged[0] and f'{tmp_path}/b/ann.json' in logged[0]


def test_a_file_without_annotations_is_refused_unless_format_only(tmp_path):
    write_coco(tmp_path, BOXES_B)
    content = json.loads((tmp_path / 'ann.json').read_text())
    del content['annotations']
    (tmp_path / 'info.json').write_text(json.dumps(content))
    metric = DatasetCocoMetric()
    with pytest.raises(
        DataFileError, match=re.escape(f'{tmp_path}/info.json has no "annotations"')
    ):
        metric.dataset_meta = dict(classes=('person',), ann_file=str(tmp_path / 'info.json'))
    metric = DatasetCocoMetric(format_only=True, outfile_prefix=str(tmp_path / 'out'))
    metric.dataset_meta = dict(classes=('person',), ann_file=str(tmp_path / 'info.json'))
    assert metric.ann_file == str(tmp_path / 'info.json')


def test_real_coco_images_score_ap_1_through_the_vitdet_config(realdata):
    """The ViTDet config's evaluator, its dataset moved to the 16 real images on the command
    line, scores their ground truth at AP 1 (the file at the config's data_root is not read)."""
    cfg = Config.fromfile(ROOT / COCO)
    cfg.merge_from_dict(
        {
            'val_dataloader.dataset.data_root': str(realdata / 'coco') + '/',
            'val_dataloader.dataset.ann_file': 'annotations/instances_train2017.json',
            'val_dataloader.dataset.data_prefix.img': 'train2017/',
            'val_dataloader.dataset.pipeline': [],
        }
    )
    metric, ap = evaluate(cfg)
    assert metric.ann_file == str(realdata / 'coco' / 'annotations' / 'instances_train2017.json')
    assert ap == pytest.approx(1.0)
