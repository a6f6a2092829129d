"""What cannot export says why: Token Graying SVD, deformable attention (ViT-Adapter),
sliding-window test configs, detectors."""

import pytest
from mmengine.config import ConfigDict

from tests.export.demo_models import DEMO_ADAPTER, demo_model
from tests.models.toy_techniques import build
from tests.utils import ROOT
from vitspec.config.load import load_config
from vitspec.errors import ConfigError
from vitspec.export import shape_limits
from vitspec.export.graphs import graph_for
from vitspec.inference.model_loading import build_model

DEMO_DETECTOR = 'mask-rcnn_specvit-tiny-p8_simplefpn_2xb4-800it_demo-coco-160x160.py'


def test_shape_limits_name_the_part_and_the_reason():
    assert shape_limits(build('plain')).dynamic_size
    limits = shape_limits(build('rel_pos_table'))
    assert not limits.dynamic_size and "rel_pos_bias='table'" in limits.reason
    assert shape_limits(build('windowed_attention')).dynamic_size
    with pytest.raises(ConfigError, match="mode='svd'"):
        shape_limits(build('token_graying_svd'))


def test_a_detector_is_refused_naming_what_blocks_it():
    config = ROOT / 'configs/demo' / DEMO_DETECTOR
    with pytest.raises(ConfigError, match='two-stage test path') as info:
        graph_for(build_model(load_config(str(config))))
    assert 'rpn_head.py' in str(info.value)


def test_deformable_attention_is_refused_naming_the_guard(tmp_path):
    """The demo ViT-Adapter + Mask2Former: mmcv's MultiScaleDeformableAttention stops
    torch.export at a check on tensor values (tried; vitspec/export/limits.py)."""
    from vitspec.export import export_model

    model = demo_model(DEMO_ADAPTER)
    with pytest.raises(ConfigError, match='MultiScaleDeformableAttention') as info:
        export_model(model, tmp_path / 'adapter.onnx', (64, 64))
    assert 'spatial_shapes' in str(info.value) and not (tmp_path / 'adapter.onnx').exists()


def test_a_sliding_window_segmentor_is_refused(demo_segmentor):
    demo_segmentor.test_cfg = ConfigDict(mode='slide', crop_size=(64, 64), stride=(32, 32))
    with pytest.raises(ConfigError, match='--whole'):
        graph_for(demo_segmentor)
