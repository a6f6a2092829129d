"""Random training batches shaped as a task's data loader gives them to ``model.train_step``:
uint8 images and the data samples its losses read (segmentation labels, depth maps, or boxes,
labels and instance masks)."""

import numpy as np
import torch

from vitspec.models.detector_classes import detector_classes

TASKS = ('segmentation', 'depth', 'detection')
BOXES_PER_IMAGE = 8


def task_of(cfg, model) -> str:
    """'detection' for an mmdet config, 'depth' for mmseg's DepthEstimator, else 'segmentation'."""
    if cfg.get('default_scope') == 'mmdet':
        return 'detection'
    from mmseg.models.segmentors import DepthEstimator

    return 'depth' if isinstance(model, DepthEstimator) else 'segmentation'


def random_batch(task: str, model, size: tuple, batch: int, seed: int = 0) -> dict:
    """``dict(inputs=[...], data_samples=[...])`` of ``batch`` images of ``size`` (h, w)."""
    if task not in TASKS:
        raise ValueError(f'task {task!r} is not one of {TASKS}')
    generator = torch.Generator().manual_seed(seed)
    h, w = size
    inputs = [torch.randint(0, 256, (3, h, w), dtype=torch.uint8, generator=generator)]
    inputs *= batch  # the same image: only the shapes matter to the time of a step
    sample = dict(segmentation=_seg_sample, depth=_depth_sample, detection=_det_sample)[task]
    return dict(inputs=inputs, data_samples=[sample(model, h, w, generator) for _ in inputs])


def _meta(h, w):
    return dict(img_shape=(h, w), ori_shape=(h, w), scale_factor=(1.0, 1.0), flip=False)


def _seg_sample(model, h, w, generator):
    from mmengine.structures import PixelData
    from mmseg.structures import SegDataSample

    head = model.decode_head
    labels = torch.randint(0, head.num_classes, (1, h, w), generator=generator)
    labels[:, : h // 8] = head.ignore_index  # a band of unlabelled pixels, as in ADE20K
    sample = SegDataSample(metainfo=_meta(h, w))
    sample.gt_sem_seg = PixelData(data=labels)
    return sample


def _depth_sample(model, h, w, generator):
    from mmengine.structures import PixelData
    from mmseg.structures import SegDataSample

    head = model.decode_head
    low, high = getattr(head, 'min_depth', 1e-3), getattr(head, 'max_depth', 10.0)
    depth = low + (high - low) * torch.rand((1, h, w), generator=generator)
    sample = SegDataSample(metainfo=_meta(h, w))
    sample.gt_depth_map = PixelData(data=depth)
    return sample


def _det_sample(model, h, w, generator):
    from mmdet.structures import DetDataSample
    from mmdet.structures.mask import BitmapMasks
    from mmengine.structures import InstanceData

    n = BOXES_PER_IMAGE
    corner = torch.rand((n, 2), generator=generator) * 0.7
    extent = 0.05 + torch.rand((n, 2), generator=generator) * 0.25
    scale = torch.tensor([w, h], dtype=torch.float32)
    boxes = torch.cat([corner * scale, (corner + extent).clamp(max=1.0) * scale], dim=1)
    masks = np.zeros((n, h, w), dtype=np.uint8)
    for mask, (x1, y1, x2, y2) in zip(masks, boxes.round().int().tolist()):
        mask[y1:y2, x1:x2] = 1
    instances = InstanceData()
    instances.bboxes = boxes
    instances.labels = torch.randint(0, detector_classes(model), (n,), generator=generator)
    instances.masks = BitmapMasks(masks, h, w)
    sample = DetDataSample(metainfo=_meta(h, w))
    sample.gt_instances = instances
    return sample
