"""The test pipeline made for arrays, and the precision a model predicts in."""

import copy

import pytest
import torch

from vitspec.inference import Predictor, load_model
from vitspec.inference.prediction import autocast_dtype, inference_pipeline, trained_mixed


def test_the_image_loader_reads_arrays_and_dataset_file_steps_go():
    pipeline = [
        dict(type='LoadImageFromFile', color_type='color_ignore_orientation'),
        dict(type='CheckSampleFiles', num_classes=150),  # a dataset's files: not an input step
        dict(type='Resize', scale=(128, 128)),
        dict(type='LoadAnnotations', reduce_zero_label=True),
        dict(type='LoadDepthPNG', depth_scale=1000),
        dict(type='PackSegInputs'),
    ]
    assert [s['type'] for s in inference_pipeline(pipeline)] == [
        'LoadImageFromNDArray',
        'Resize',
        'PackSegInputs',
    ]
    with pytest.raises(ValueError, match='no image loader'):
        inference_pipeline([dict(type='PackSegInputs')])


def test_models_predict_in_the_precision_they_were_trained_in(segmenter_checkpoint):
    loaded = load_model(segmenter_checkpoint)
    assert trained_mixed(loaded.cfg) is None
    assert Predictor(loaded).amp is False and Predictor(loaded, amp=True).amp is True
    mixed = copy.deepcopy(loaded.cfg)
    mixed.optim_wrapper.update(type='AmpOptimWrapper', dtype='float16')
    predictor = Predictor(loaded._replace(cfg=mixed))
    assert predictor.amp is True and Predictor(loaded._replace(cfg=mixed), amp=False).amp is False
    with predictor.precision():
        assert torch.get_autocast_dtype('cpu') == torch.bfloat16  # float16 only on GPUs
    assert autocast_dtype(torch.device('cpu'), 'float16') == torch.bfloat16
