"""tools/benchmark.py --config: training configs' train steps timed side by side on CPU, ours and
an installed peer's (mmseg::), segmentation, depth and detection with instance masks."""

import json
import math
import os.path as osp
from types import SimpleNamespace

import pytest
import torch
from mmengine.config import Config

from tests.utils import ROOT
from tools.benchmark import main
from vitspec.benchmarking.config_report import format_config_table
from vitspec.benchmarking.config_runs import run_configs
from vitspec.benchmarking.config_source import crop_size, resolve_config_path
from vitspec.benchmarking.random_batch import random_batch
from vitspec.errors import ConfigError

DEMO = ROOT / 'configs' / 'demo'
SEG_DEMO = str(DEMO / 'fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py')
DET_DEMO = str(DEMO / 'mask-rcnn_specvit-tiny-p8_simplefpn_2xb4-800it_demo-coco-160x160.py')
DEPTH_DEMO = str(DEMO / 'lin4_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py')
MMSEG_MAE = 'mmseg::mae/mae-base_upernet_8xb2-amp-160k_ade20k-512x512.py'
# mmseg's MAE + UPerNet as shipped, at 64x64 with a 4-block, 32-wide backbone and heads
MMSEG_MAE_SMALL = {
    'crop_size': (64, 64),
    'model.data_preprocessor.size': (64, 64),
    'model.backbone.img_size': (64, 64),
    'model.backbone.embed_dims': 32,
    'model.backbone.num_layers': 4,
    'model.backbone.num_heads': 2,
    'model.backbone.out_indices': [0, 1, 2, 3],
    'model.neck.embed_dim': 32,
    'model.decode_head.in_channels': [32] * 4,
    'model.decode_head.channels': 32,
    'model.auxiliary_head.in_channels': 32,
    'model.auxiliary_head.channels': 16,
    'optim_wrapper.paramwise_cfg.num_layers': 4,
}
CPU = torch.device('cpu')


def test_a_package_scoped_config_is_the_installed_packages_file():
    path = resolve_config_path(MMSEG_MAE)
    assert path.endswith(osp.join('mmseg', '.mim', 'configs', 'mae', osp.basename(MMSEG_MAE)))
    assert osp.isfile(path)
    assert resolve_config_path(SEG_DEMO) == SEG_DEMO


def test_the_training_input_size_is_read_from_the_config():
    def cfg(**kw):
        return Config(dict(dict(model=dict()), **kw))

    pipeline = [dict(type='RandomResize'), dict(type='RandomCrop', crop_size=(96, 80))]
    loader = dict(dataset=dict(pipeline=pipeline))
    assert crop_size(cfg(train_dataloader=loader, image_size=(10, 10))) == (96, 80)
    assert crop_size(cfg(crop_size=(32, 48), train_dataloader=loader)) == (32, 48)
    assert crop_size(cfg(model=dict(data_preprocessor=dict(size=(40, 40))))) == (40, 40)
    pad = dict(dataset=dict(pipeline=[dict(type='FixedSizePad', size=(160, 160))]))
    assert crop_size(cfg(train_dataloader=pad)) == (160, 160)
    assert crop_size(cfg(image_size=1024)) == (1024, 1024)
    with pytest.raises(ValueError, match='no training input size'):
        crop_size(cfg())
    assert crop_size(Config.fromfile(DEPTH_DEMO)) == (112, 144)  # not nyu_depth.py's 416x544


def test_a_random_detection_batch_has_boxes_labels_and_their_masks():
    detector = SimpleNamespace(roi_head=SimpleNamespace(bbox_head=SimpleNamespace(num_classes=5)))
    batch = random_batch('detection', detector, (48, 64), batch=2)
    assert [tuple(x.shape) for x in batch['inputs']] == [(3, 48, 64)] * 2
    for sample in batch['data_samples']:
        gt = sample.gt_instances
        x1, y1, x2, y2 = gt.bboxes.round().int().unbind(1)
        assert (x1 >= 0).all() and (x2 <= 64).all() and (y2 <= 48).all() and (x2 > x1).all()
        assert ((gt.labels >= 0) & (gt.labels < 5)).all()
        areas = torch.from_numpy(gt.masks.masks).flatten(1).sum(1)
        assert torch.equal(areas, (x2 - x1) * (y2 - y1))  # each mask fills its box
        assert sample.img_shape == (48, 64)


@pytest.mark.parametrize(
    'detector, classes',
    [
        (SimpleNamespace(bbox_head=SimpleNamespace(num_classes=7)), 7),  # one-stage, DINO
        (SimpleNamespace(num_classes=3), 3),  # PlainDETR: its own num_classes
        (SimpleNamespace(), None),
    ],
)
def test_the_detection_labels_come_from_the_head_or_the_detector(detector, classes):
    if classes is None:
        with pytest.raises(ConfigError, match='number of classes'):
            random_batch('detection', detector, (32, 32), batch=1)
        return
    labels = random_batch('detection', detector, (32, 32), batch=4)['data_samples'][0]
    assert (labels.gt_instances.labels < classes).all()


@pytest.mark.slow
def test_ours_and_mmsegs_configs_are_timed_side_by_side():
    ours_small = dict(config=SEG_DEMO, cfg_options={'crop_size': (64, 64)})
    result = run_configs(
        [ours_small, dict(config=MMSEG_MAE, cfg_options=MMSEG_MAE_SMALL)],
        CPU,
        rounds=2,
        warmup=1,
        batch=2,  # UPerNet's pooling branch normalises 1x1 maps: BatchNorm needs 2 images
    )
    ours, mmseg = result['rows']
    assert result['baseline'] == ours['name'] == osp.basename(SEG_DEMO)[:-3]
    assert ours['speed_vs_baseline'] == 1.0 and ours['speed_interval'] == [1.0, 1.0]
    for row in result['rows']:
        assert row['task'] == 'segmentation' and row['size'] == [64, 64] and row['batch'] == 2
        assert row['runs'] == 2
        assert all(math.isfinite(t) and t > 0 for t in row['times_s'])
        assert row['images_per_s'] == pytest.approx(2 / row['median_s'])
        assert math.isfinite(row['speed_vs_baseline']) and row['speed_vs_baseline'] > 0
        assert row['memory_bytes'] > 0
    # mmseg 1.x trains its MAE config in fp32: its `fp16=` key builds no AMP
    assert (mmseg['optim_wrapper'], mmseg['precision']) == ('OptimWrapper', 'fp32')
    assert mmseg['fp16_key_ignored'] and not ours['fp16_key_ignored']
    table = format_config_table(result)
    assert '| fp32 (its fp16= key ignored) |' in table.splitlines()[-1]


@pytest.mark.slow
def test_detection_and_depth_configs_run_from_the_command_line(tmp_path, capsys):
    out = tmp_path / 'benchmark.json'
    argv = ['--config', DET_DEMO, '--config', DEPTH_DEMO, '--batch', '1', '--rounds', '1']
    main([*argv, '--warmup', '0', '--device', 'cpu', '--out', str(out)])
    [result] = json.loads(out.read_text())['results']
    det, depth = result['rows']
    assert (det['task'], det['size']) == ('detection', [160, 160])
    assert (depth['task'], depth['size']) == ('depth', [112, 144])
    assert det['speed_vs_baseline'] == 1.0
    for row in (det, depth):
        assert row['median_s'] > 0 and math.isfinite(row['median_s']) and row['memory_bytes'] > 0
    printed = capsys.readouterr().out
    assert f'| {det["name"]} | detection | 1 | 160x160 | fp32 |' in printed


@pytest.mark.slow  # builds and times the demo config: 7-10 s
def test_a_config_is_timed_in_inference_mode_through_its_test_step(capsys):
    small = {'crop_size': (64, 64), 'model.test_cfg': dict(mode='whole')}
    result = run_configs(
        [SEG_DEMO], CPU, rounds=1, warmup=0, batch=1, cfg_options=small, mode='inference'
    )
    [row] = result['rows']
    assert result['mode'] == row['mode'] == 'inference'
    assert (row['task'], row['size'], row['runs']) == ('segmentation', [64, 64], 1)
    assert math.isfinite(row['median_s']) and row['median_s'] > 0
    assert row['memory_bytes'] == 0  # nothing is saved for a backward pass
    assert format_config_table(result).startswith('inference (model.test_step, no grad')


def test_an_unknown_mode_is_refused_naming_it():
    from vitspec.benchmarking.config_case import ConfigCase

    with pytest.raises(ValueError, match="mode 'predict'"):
        ConfigCase('demo', SEG_DEMO, CPU, mode='predict')
