"""The demo segmenter and depth model in sliding windows on a large image made of real samples:
one window over the whole image is the whole-image prediction exactly; many windows give the
image's size and the model's value ranges, into a memory-mapped output."""

import numpy as np
import pytest
import torch

from vitspec.inference import Predictor, load_model, read_image
from vitspec.inference.large_images import default_window, slide_predict, window_predictor


@pytest.fixture(scope='module')
def large_image(ade_images):
    """2 x 2 tiles of a real ADE20K image: 1024 x 1366 pixels (1.4 MP)."""
    tile = read_image(ade_images / 'ADE_val_00000001.jpg').bgr
    return np.concatenate([np.concatenate([tile] * 2, axis=1)] * 2, axis=0)


def whole_image(predictor, bgr):
    return window_predictor(predictor, bgr)([(0, 0)], bgr.shape[:2])[0]


@pytest.mark.parametrize('task', ['segmentation', 'depth'])
def test_one_window_over_the_image_is_the_whole_image_prediction(
    task, segmenter_checkpoint, depth_checkpoint, ade_images
):
    loaded = load_model(segmenter_checkpoint if task == 'segmentation' else depth_checkpoint)
    predictor = Predictor(loaded)
    bgr = read_image(ade_images / 'ADE_val_00000003.jpg').bgr
    slid = slide_predict(predictor, bgr, window=(1000, 1000))
    whole = whole_image(predictor, bgr)
    if task == 'segmentation':
        assert np.array_equal(slid, whole.argmax(0).numpy())
    else:
        assert np.abs(slid - whole[0].numpy()).max() == 0


def test_a_large_image_in_windows_into_a_memory_map(segmenter_checkpoint, large_image, tmp_path):
    predictor = Predictor(load_model(segmenter_checkpoint))
    assert default_window(predictor.loaded.cfg) == (128, 128)
    out = np.lib.format.open_memmap(tmp_path / 'labels.npy', 'w+', np.uint8, (600, 1366))
    labels = slide_predict(predictor, large_image[:600], window=(256, 256), batch_size=8, out=out)
    assert labels is out and labels.shape == (600, 1366)
    assert labels.max() < 150


def test_depth_in_windows_is_in_the_model_range(depth_checkpoint, large_image):
    predictor = Predictor(load_model(depth_checkpoint))
    depth = slide_predict(predictor, large_image[:600, :900], window=(112, 144))
    assert depth.shape == (600, 900) and depth.dtype == np.float32
    assert 1e-3 <= depth.min() and depth.max() <= 10.0
    assert torch.isfinite(torch.from_numpy(depth)).all()


def test_stripes_bound_the_scores_and_change_nothing(segmenter_checkpoint, large_image):
    predictor = Predictor(load_model(segmenter_checkpoint))
    image = large_image[:200, :700]
    one_band = slide_predict(predictor, image, window=(128, 128))
    bound = 150 * 128 * 200 * 4  # stripes of 200 columns
    assert np.array_equal(
        slide_predict(predictor, image, window=(128, 128), max_band_bytes=bound), one_band
    )
