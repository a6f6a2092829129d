"""Typos one level below the model and the dataloaders, and bad names in metric options, stop
the run with the key meant before anything is built (they ended in constructor TypeErrors or were
ignored)."""

import pytest
from mmengine.config import Config

import vitspec  # noqa: F401  registers
from tests.utils import ROOT
from vitspec.config.component_keys import component_errors
from vitspec.config.typos import check_config_keys
from vitspec.errors import ConfigKeyError

DEMO = ROOT / 'configs/demo'
SEG = DEMO / 'fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
EOMT = DEMO / 'eomt_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
M2F = DEMO / 'mask2former_specvit-tiny-p8-adapter_2xb4-500it_demo-ade20k-128x128.py'
DET = DEMO / 'mask-rcnn_specvit-tiny-p8_simplefpn_2xb4-800it_demo-coco-160x160.py'


@pytest.mark.parametrize(
    'path, key, value, message',
    [
        (
            M2F,
            'model.decode_head.test_cfg.mdoe',
            'slide',
            'model.decode_head.test_cfg.mdoe: ChunkedEncoderDecoder reads its inference settings '
            'from model.test_cfg, not from the head; did you mean model.test_cfg.mode?',
        ),
        (EOMT, 'model.decode_head.test_cfg.mdoe', 'slide', "EoMT has no option 'decode_head'"),
        (
            SEG,
            'test_dataloader.dataset.pipeline.2.scael',
            (64, 64),
            "pipeline.2.scael: Resize has no option 'scael'; did you mean 'scale'?",
        ),
        (
            SEG,
            'model.data_preprocessor.meen',
            [1, 2, 3],
            "model.data_preprocessor.meen: SegDataPreProcessor has no option 'meen'; "
            "did you mean 'mean'?",
        ),
        (
            DET,
            'model.test_cfg.rpn.nms.iou_threshhold',
            0.5,
            "model.test_cfg.rpn.nms.iou_threshhold: mmcv's nms has no option 'iou_threshhold'; "
            "did you mean 'iou_threshold'?",
        ),
        (
            SEG,
            'test_evaluator.iou_metrics',
            ['mDise'],
            "test_evaluator.iou_metrics: 'mDise' is not one of IoUMetric's 'mIoU', 'mDice', "
            "'mFscore'; did you mean 'mDice'?",
        ),
        (DET, 'train_dataloader.dataset.ann_fle', 'x.json', "did you mean 'ann_file'?"),
    ],
)
def test_a_typo_below_the_model_or_a_dataloader_names_the_key_meant(path, key, value, message):
    cfg = Config.fromfile(path)
    cfg.merge_from_dict({key: value})
    with pytest.raises(ConfigKeyError) as error:
        check_config_keys(cfg)
    assert message in str(error.value)


@pytest.mark.parametrize('path', [SEG, EOMT, M2F, DET])
def test_the_demo_configs_pass(path):
    cfg = Config.fromfile(path)
    assert component_errors(cfg, cfg.get('default_scope')) == []
    check_config_keys(cfg)  # nor does any other check of the config's keys object
