"""A detector's class count, read from whichever head holds it: what the prediction writers
name boxes by when a checkpoint carries no class names, and what random training labels draw
from."""

import pytest
from mmengine.config import Config
from torch import nn

from tests.models.plain_detr.toy import detector
from vitspec.errors import ConfigError
from vitspec.inference.batch_run import writer_for
from vitspec.inference.model_loading import DETECTION, LoadedModel
from vitspec.models.detector_classes import detector_classes

TOY_VIT = dict(
    img_size=32, patch_size=8, embed_dims=32, num_layers=2, num_heads=2, out_indices=(1,)
)


def head(num_classes):
    module = nn.Module()
    module.num_classes = num_classes
    return module


def with_parts(**parts):
    model = nn.Module()
    for name, part in parts.items():
        setattr(model, name, part)
    return model


def test_two_stage_one_stage_and_cascade_heads():
    assert detector_classes(with_parts(roi_head=with_parts(bbox_head=head(7)))) == 7
    assert detector_classes(with_parts(bbox_head=head(5))) == 5
    cascade = nn.ModuleList([head(80), head(80), head(9)])
    assert detector_classes(with_parts(roi_head=with_parts(bbox_head=cascade))) == 9


def test_plain_detr_keeps_its_count_on_itself():
    assert detector_classes(detector(TOY_VIT)) == 3


def test_a_model_without_a_box_head_is_named():
    with pytest.raises(ConfigError, match='Module: no box head'):
        detector_classes(nn.Module())


def test_the_writer_numbers_a_plain_detr_s_classes_without_names(tmp_path):
    loaded = LoadedModel(detector(TOY_VIT), Config(), DETECTION, {}, 'toy.pth')
    assert writer_for(loaded, tmp_path).classes == [0, 1, 2]
