"""--show-dir draws a prediction on the pixels the model saw: a photo with an EXIF orientation tag
is drawn in its stored pixel order, as it was loaded (mmseg's hook rotated it: IndexError)."""

from types import SimpleNamespace

import numpy as np
import pytest
import torch
from mmdet.engine.hooks import DetVisualizationHook
from mmdet.structures import DetDataSample
from mmdet.visualization import DetLocalVisualizer
from mmengine.structures import InstanceData, PixelData
from mmseg.engine.hooks import SegVisualizationHook
from mmseg.structures import SegDataSample
from mmseg.visualization import SegLocalVisualizer
from PIL import Image

import vitspec  # noqa: F401  (registers)
from tests.utils import restored_mmengine_instances
from vitspec.datasets import image_orientation
from vitspec.engine import StoredOrderDetVisualizationHook, StoredOrderSegVisualizationHook

ROTATE_90 = 6
H, W = 40, 60
RUNNER = SimpleNamespace(iter=0, work_dir='unused', timestamp='t')


def tagged_photo(path):
    """A 60x40 JPEG (stored order) tagged 'rotate 90': mmcv's 'color' decoding gives 40x60."""
    pixels = np.zeros((H, W, 3), np.uint8)
    pixels[:, : W // 2] = 255
    exif = Image.Exif()
    exif[image_orientation.ORIENTATION_TAG] = ROTATE_90
    Image.fromarray(pixels).save(path, exif=exif.tobytes())
    return str(path)


@pytest.fixture
def drawn():
    """The pictures a visualizer is asked to draw, by name; the global visualizer restored."""
    with restored_mmengine_instances():
        yield {}


def seg_sample(img_path):
    sample = SegDataSample(metainfo=dict(img_path=img_path, ori_shape=(H, W)))
    sample.pred_sem_seg = PixelData(data=torch.ones(1, H, W, dtype=torch.long))
    return sample


def test_segmentation_picture_is_drawn_on_the_stored_pixels(tmp_path, drawn):
    visualizer = SegLocalVisualizer.get_instance(
        'seg_vis', save_dir=str(tmp_path), vis_backends=[dict(type='LocalVisBackend')]
    )
    visualizer.dataset_meta = dict(classes=('a', 'b'), palette=[[0, 0, 0], [255, 0, 0]])
    sample = seg_sample(tagged_photo(tmp_path / 'photo.jpg'))
    with pytest.raises(IndexError):  # mmseg's own hook draws on the rotated photo
        SegVisualizationHook(draw=True, interval=1)._after_iter(
            RUNNER, 0, {}, [sample], mode='test'
        )

    StoredOrderSegVisualizationHook(draw=True, interval=1)._after_iter(
        RUNNER, 0, {}, [sample], mode='test'
    )
    [picture] = (tmp_path / 'vis_data' / 'vis_image').glob('test_photo.jpg*')
    drawing = np.asarray(Image.open(picture))
    assert drawing.shape == (H, W, 3)
    assert drawing[:, W // 2 :].mean() < drawing[:, : W // 2].mean()  # the bright stored half


def test_detection_picture_is_drawn_on_the_stored_pixels(tmp_path, monkeypatch, drawn):
    visualizer = DetLocalVisualizer.get_instance('det_vis')
    visualizer.dataset_meta = dict(classes=('a',), palette=[(255, 0, 0)])
    monkeypatch.setattr(
        visualizer, 'add_datasample', lambda name, img, **kw: drawn.update({name: img})
    )
    sample = DetDataSample(metainfo=dict(img_path=tagged_photo(tmp_path / 'photo.jpg')))
    sample.pred_instances = InstanceData(
        bboxes=torch.tensor([[5.0, 5.0, 50.0, 30.0]]), scores=torch.ones(1), labels=torch.zeros(1)
    )
    DetVisualizationHook(draw=True).after_test_iter(RUNNER, 0, {}, [sample])
    assert drawn.pop('test_img').shape == (W, H, 3)  # mmdet's own hook: the rotated photo

    hook = StoredOrderDetVisualizationHook(draw=True)
    hook.after_test_iter(RUNNER, 0, {}, [sample])
    hook.after_val_iter(RUNNER, 0, {}, [sample])
    assert {name: img.shape for name, img in drawn.items()} == {
        'test_img': (H, W, 3),
        'val_img': (H, W, 3),
    }
