"""What the detection writer makes of known instances: COCO boxes and RLE masks, and a picture
that draws the confident ones only."""

import json

import cv2
import numpy as np
import torch
from mmengine.structures import InstanceData
from pycocotools import mask as mask_utils

from vitspec.inference.writers import DetectionWriter


def instances(height=60, width=80):
    masks = torch.zeros((2, height, width), dtype=torch.bool)
    masks[0, 10:30, 20:50] = True
    masks[1, 40:50, 5:15] = True
    return InstanceData(
        bboxes=torch.tensor([[20.0, 10.0, 50.0, 30.0], [5.0, 40.0, 15.0, 50.0]]),
        scores=torch.tensor([0.9, 0.1]),
        labels=torch.tensor([1, 0]),
        masks=masks,
    )


def test_boxes_masks_and_the_picture(tmp_path):
    writer = DetectionWriter(tmp_path, dict(classes=('cat', 'dog'), palette=[(255, 0, 0)] * 2), 2)
    image = np.full((60, 80, 3), 128, np.uint8)
    written = writer.write('a', image, instances(), source=tmp_path / 'a.png')
    assert written['detections'] == 1  # drawn: the one at 0.9
    coco = json.loads(writer.close().read_text())
    assert coco['images'] == [dict(id=1, file_name='a.png', width=80, height=60)]
    first, second = coco['annotations']
    assert first['bbox'] == [20.0, 10.0, 30.0, 20.0] and first['category_id'] == 2
    assert first['area'] == 600.0 and abs(second['score'] - 0.1) < 1e-6
    assert mask_utils.decode(first['segmentation'])[10:30, 20:50].all()
    picture = cv2.imread(str(written['picture']))
    assert picture.shape == image.shape
    assert np.abs(picture[20, 35].astype(int) - 128).max() > 20  # tinted inside the mask
    assert np.abs(picture[45, 10].astype(int) - 128).max() < 10  # 0.1: not drawn
