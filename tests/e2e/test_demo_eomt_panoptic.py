"""End to end on the demo COCO panoptic data: EoMT panoptic (EoMTPanoptic) trains a few
iterations and scores above the same model untrained, in panoptic quality
(PanopticQualityMetric, panopticapi's rules) and in mask AP of its instances (mmdet's CocoMetric
against the instances file of the same scenes).

In process: the demo config's own schedule takes minutes; here 16 iterations. Its class scores
stay under EoMT's object_mask_thr of 0.8 for far longer than that, so both models are scored
with 0.2 (16 iterations on 16 images: PQ 0 untrained, 26 trained; mask AP50 0 and 0.32 on 6
images)."""

import copy

from mmengine.config import Config

from tests.utils import ROOT, make_demo_data
from vitspec.runs.runner import build_runner

CONFIG = ROOT / 'configs/demo/eomt_specvit-tiny-p8_2xb4-500it_demo-coco-panoptic-128x128.py'
ITERS = 16


def config(data, work, iters):
    cfg = Config.fromfile(str(CONFIG))
    for split in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        cfg[split].dataset.data_root = f'{data}/'
    instances = f'{data}/annotations/instances_val2017.json'
    cfg.val_evaluator[1].ann_file = instances
    cfg.test_evaluator[1].ann_file = instances
    cfg.model.test_cfg = dict(object_mask_thr=0.2)
    cfg.work_dir = str(work)
    cfg.train_cfg.max_iters = iters
    cfg.train_cfg.val_interval = iters + 1  # validated below, once
    cfg.default_hooks.checkpoint.interval = iters + 1
    cfg.param_scheduler[0].end = 6
    cfg.param_scheduler[1].begin = 5
    cfg.param_scheduler[1].end = iters
    cfg.custom_hooks[-1].start_iters = [4, 8]
    cfg.custom_hooks[-1].end_iters = [8, 12]
    return cfg


def validate(runner) -> dict:
    runner._val_loop = runner.build_val_loop(runner._val_loop)
    return runner.val_loop.run()


def test_eomt_panoptic_demo_learns_panoptic_quality_and_mask_ap(tmp_path):
    data = make_demo_data(tmp_path / 'data', 'coco', 16, 6)
    untrained = build_runner(config(data, tmp_path / 'untrained', ITERS))
    before = validate(untrained)
    trained = build_runner(copy.deepcopy(config(data, tmp_path / 'trained', ITERS)))
    trained.train()
    after = validate(trained)
    assert after['coco_panoptic/PQ'] > before['coco_panoptic/PQ'], (before, after)
    assert after['coco/segm_mAP_50'] > before.get('coco/segm_mAP_50', 0.0), (before, after)
