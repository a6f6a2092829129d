"""Keys of nested config dicts checked against what their consumers read, before the run is
built: ``model.test_cfg.mdoe=slide`` tested whole images (exit 0), ``iou_metric=['mDice']``
scored mIoU (exit 0), ``mode=slide`` without crop size / stride ended in an AttributeError, and
``test_evaluator.metrics=[...]`` in a registry KeyError."""

import pytest
from mmengine.config import Config

import vitspec  # noqa: F401  registers
from tests.utils import ROOT
from vitspec.config.nested_keys import nested_key_errors
from vitspec.config.typos import check_config_keys
from vitspec.errors import ConfigKeyError

DEMO = ROOT / 'configs/demo'
SEG = DEMO / 'fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
EOMT = DEMO / 'eomt_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
M2F = DEMO / 'mask2former_specvit-tiny-p8-adapter_2xb4-500it_demo-ade20k-128x128.py'
DEPTH = DEMO / 'lin4_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py'
DET = DEMO / 'mask-rcnn_specvit-tiny-p8_simplefpn_2xb4-800it_demo-coco-160x160.py'


def errors(path, **options):
    cfg = Config.fromfile(path)
    cfg.merge_from_dict(options)
    return nested_key_errors(cfg)


@pytest.mark.parametrize('path', [SEG, EOMT, M2F, DEPTH, DET])
def test_the_demo_configs_pass(path):
    assert errors(path) == []


def test_a_misspelt_test_cfg_key_names_the_one_meant():
    [problem] = errors(SEG, **{'model.test_cfg.mdoe': 'slide'})
    assert problem == (
        'model.test_cfg.mdoe: ChunkedEncoderDecoder (EncoderDecoder inference) does not read '
        "'mdoe'; did you mean 'mode'?"
    )
    [problem] = errors(EOMT, **{'model.test_cfg.strid': (64, 64)})
    assert "EoMT (EncoderDecoder inference) does not read 'strid'; did you mean 'stride'?" in (
        problem
    )


def test_slide_mode_needs_its_window_and_step():
    problems = errors(SEG, **{'model.test_cfg.mode': 'slide'})
    assert [p.split(':')[0] for p in problems] == [
        'model.test_cfg.crop_size=None',
        'model.test_cfg.stride=None',
    ]
    assert (
        'needs crop_size as (height, width), e.g. model.test_cfg.crop_size=(512,512)'
        in (problems[0])
    )
    slide = {'model.test_cfg': dict(mode='slide', crop_size=(64, 64), stride=(32, 32))}
    assert errors(SEG, **slide) == []


def test_a_mode_the_segmentor_does_not_run_is_named():
    [problem] = errors(SEG, **{'model.test_cfg.mode': 'slde'})
    assert problem == (
        "model.test_cfg.mode='slde': ChunkedEncoderDecoder (EncoderDecoder inference) runs "
        "'whole' or "
        "'slide'; did you mean 'slide'?"
    )
    slide_flip = {'model.test_cfg': dict(mode='slide_flip', crop_size=(8, 8), stride=(8, 8))}
    assert errors(DEPTH, **slide_flip) == []  # DepthEstimator's own mode


def test_a_misspelt_metric_option_names_the_one_meant():
    problems = errors(SEG, **{'test_evaluator.iou_metric': ['mDice']})
    assert problems == [
        "test_evaluator.iou_metric: IoUMetric has no option 'iou_metric'; "
        "did you mean 'iou_metrics'?"
    ]


def test_metrics_in_a_metric_dict_says_how_to_list_several():
    [problem] = errors(SEG, **{'test_evaluator.metrics': ['mIoU', 'mDice']})
    assert problem.startswith("test_evaluator.metrics: IoUMetric has no option 'metrics'")
    assert "test_evaluator = [dict(type='IoUMetric', ...), dict(type=...)]" in problem


def test_evaluator_lists_and_unknown_options_are_checked():
    cfg = Config.fromfile(SEG)
    cfg.val_evaluator = [dict(type='IoUMetric', iou_metrics=['mIoU']), dict(type='IoUMetric', x=1)]
    [problem] = nested_key_errors(cfg)
    assert problem.startswith("val_evaluator.1.x: IoUMetric has no option 'x'; its options: ")


def test_mask_head_train_cfg_and_loop_options_are_checked():
    [head] = errors(M2F, **{'model.decode_head.train_cfg.num_point': 64})
    assert head == (
        "model.decode_head.train_cfg.num_point: Mask2FormerHead does not read 'num_point'; "
        "did you mean 'num_points'?"
    )
    [loop] = errors(SEG, **{'train_cfg.val_intervl': 10})
    assert loop == (
        "train_cfg.val_intervl: IterBasedTrainLoop has no option 'val_intervl'; "
        "did you mean 'val_interval'?"
    )


def test_the_run_stops_before_it_is_built():
    cfg = Config.fromfile(SEG)
    cfg.merge_from_dict({'model.test_cfg.mdoe': 'slide', 'test_evaluator.iou_metric': ['mDice']})
    with pytest.raises(ConfigKeyError) as raised:
        check_config_keys(cfg)
    assert "did you mean 'mode'?" in str(raised.value)
    assert "did you mean 'iou_metrics'?" in str(raised.value)


def test_a_two_stage_detectors_test_and_train_cfg_are_checked():
    """mmdet reads rcnn.score_thr with a default nowhere: a typo kept its 0.05 silently."""
    [problem] = errors(DET, **{'model.test_cfg.rcnn.score_thres': 0.3})
    assert problem == (
        "model.test_cfg.rcnn.score_thres: MaskRCNN (test_cfg).rcnn does not read 'score_thres'; "
        "did you mean 'score_thr'?"
    )
    [problem] = errors(DET, **{'model.train_cfg.rpn_proposals': dict(nms_pre=10)})
    assert "did you mean 'rpn_proposal'?" in problem
