"""A model from a checkpoint alone (its saved config) or with a config, loaded strictly and
safely."""

import pytest
import torch

from tests.inference.demo_checkpoints import DEPTHER, SEGMENTER, save_demo_checkpoint
from vitspec.errors import CheckpointError, ConfigError
from vitspec.inference import DEPTH, SEGMENTATION, load_model

SPEC = SEGMENTER.parent / 'fcn_specvit-tiny-p8-spec_2xb4-500it_demo-ade20k-128x128.py'


def test_the_checkpoint_alone_builds_its_model(segmenter_checkpoint):
    loaded = load_model(segmenter_checkpoint)
    assert loaded.task == SEGMENTATION and not loaded.model.training
    assert len(loaded.dataset_meta['classes']) == 150
    saved = torch.load(segmenter_checkpoint, weights_only=False)['state_dict']
    assert all(torch.equal(v, saved[k]) for k, v in loaded.model.state_dict().items())


def test_a_config_that_builds_another_model_is_refused(segmenter_checkpoint):
    load_model(segmenter_checkpoint, str(SEGMENTER))  # the same config passes
    with pytest.raises(ValueError, match='another model'):
        load_model(segmenter_checkpoint, str(SPEC))


def test_a_checkpoint_without_its_config_needs_one(tmp_path):
    path = save_demo_checkpoint(DEPTHER, tmp_path / 'bare.pth', meta_cfg=False)
    with pytest.raises(ConfigError, match='holds no training config'):
        load_model(path)
    assert load_model(path, str(DEPTHER)).task == DEPTH


def test_weights_of_another_model_are_refused(depth_checkpoint):
    with pytest.raises(CheckpointError, match='does not fit'):
        load_model(depth_checkpoint, str(SEGMENTER), check_config=False)
