"""FixedSizePad pads image and masks to one size and keeps img_shape the real image size."""

import numpy as np
from mmdet.registry import TRANSFORMS
from mmdet.structures.mask import BitmapMasks
from mmengine.registry import DefaultScope

import vitspec  # noqa: F401  (registers)


def test_pads_image_and_masks_but_keeps_img_shape():
    with DefaultScope.overwrite_default_scope('mmdet'):
        pad = TRANSFORMS.build(dict(type='FixedSizePad', size=(12, 16)))  # (w, h) as mmcv
    img = np.zeros((10, 7, 3), np.uint8)
    masks = BitmapMasks(np.ones((2, 10, 7), np.uint8), 10, 7)
    out = pad(dict(img=img, img_shape=(10, 7), gt_masks=masks))
    assert out['img'].shape == (16, 12, 3) and out['pad_shape'][:2] == (16, 12)
    assert out['img_shape'] == (10, 7)
    assert (out['img'][10:] == 114).all() and (out['img'][:, 7:] == 114).all()
    assert out['gt_masks'].masks.shape == (2, 16, 12) and out['gt_masks'].masks.sum() == 2 * 70
