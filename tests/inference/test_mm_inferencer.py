"""mmseg's and mmdet's own ways to predict with vitspec configs and checkpoints: their
inferencers, and init_model + inference_model / init_detector + inference_detector (what their
demo/image_demo.py scripts call).

As a new user writes it, ``MMSegInferencer(model=<demo config>, weights=<checkpoint>)`` fails
twice: torch's weights-only loading refuses the checkpoint's HistoryBuffer, and the inferencer
finds no transform named LoadImageFromFile. Both are asserted here, so that a fix upstream shows.
"""

import pickle

import numpy as np
import pytest
from mmseg.apis import MMSegInferencer, inference_model, init_model
from PIL import Image

from tests.inference.demo_checkpoints import SEGMENTER
from vitspec.config.load import load_config
from vitspec.fileio import using_safe_io
from vitspec.inference import Predictor, load_model, read_image
from vitspec.inference.mm_inferencer import (
    DetectionInferencer,
    SegInferencer,
    inferencer_compatible,
)

IMAGE = 'ADE_val_00000002.jpg'


def test_mmsegs_inferencer_as_is_fails_on_the_two_known_causes(segmenter_checkpoint):
    with pytest.raises(pickle.UnpicklingError, match='HistoryBuffer'):
        MMSegInferencer(model=str(SEGMENTER), weights=str(segmenter_checkpoint), device='cpu')
    with using_safe_io(), pytest.raises(ValueError, match='LoadImageFromFile is not found'):
        MMSegInferencer(model=str(SEGMENTER), weights=str(segmenter_checkpoint), device='cpu')


@pytest.mark.parametrize('config', [SEGMENTER, None])
def test_seg_inferencer_predicts_at_the_image_size(
    config, segmenter_checkpoint, ade_images, tmp_path
):
    inferencer = SegInferencer(
        model=config and str(config), weights=str(segmenter_checkpoint), device='cpu'
    )
    result = inferencer(str(ade_images / IMAGE), out_dir=str(tmp_path))
    assert result['predictions'].shape == (364, 500)
    assert result['predictions'].max() < 150
    assert Image.open(tmp_path / 'vis' / IMAGE).size == (500, 364)


def test_mmsegs_own_classes_with_a_compatible_config(segmenter_checkpoint, ade_images):
    cfg = inferencer_compatible(load_config(str(SEGMENTER)))
    with using_safe_io():
        inferencer = MMSegInferencer(model=cfg, weights=str(segmenter_checkpoint), device='cpu')
        model = init_model(cfg, str(segmenter_checkpoint), device='cpu')
    by_inferencer = inferencer(str(ade_images / IMAGE))['predictions']
    by_demo_api = inference_model(model, str(ade_images / IMAGE)).pred_sem_seg.data[0].numpy()
    assert np.array_equal(by_inferencer, by_demo_api)
    ours = Predictor(load_model(segmenter_checkpoint)).predict([read_image(ade_images / IMAGE).bgr])
    assert np.array_equal(ours[0].pred_sem_seg.data[0].numpy(), by_demo_api)


def test_mmdets_inferencer_and_demo_api_on_a_detector(realdata, tmp_path):
    from mmdet.apis import DetInferencer, inference_detector, init_detector

    from tests.inference.demo_checkpoints import DETECTOR, save_demo_checkpoint

    checkpoint = str(save_demo_checkpoint(DETECTOR, tmp_path / 'det.pth'))
    image = str(realdata / 'coco/train2017/000000005802.jpg')
    cfg = inferencer_compatible(load_config(str(DETECTOR)))
    with using_safe_io():
        by_mmdet = DetInferencer(model=cfg, weights=checkpoint, device='cpu')(image)
        model = init_detector(cfg, checkpoint, device='cpu')
    ours = DetectionInferencer(weights=checkpoint, device='cpu')(image, out_dir=str(tmp_path))
    by_demo_api = inference_detector(model, image).pred_instances
    assert by_mmdet['predictions'][0]['scores'] == ours['predictions'][0]['scores']
    assert np.allclose(by_mmdet['predictions'][0]['scores'], by_demo_api.scores.numpy())
    assert (tmp_path / 'vis/000000005802.jpg').is_file()
