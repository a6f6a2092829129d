"""A toy PlainDETR on any SpecViT and a padded, non-square toy batch with boxes."""

import torch
from mmdet.structures import DetDataSample
from mmengine.structures import InstanceData

from vitspec.models.plain_detr import PlainDETR

HEAD = dict(num_classes=3, dims=32, num_heads=4, ffn_dims=40, num_decoder_layers=2,
            num_encoder_layers=1, encoder_ffn_dims=24, num_queries=5, num_queries_one2many=4,
            rpb_hidden=8, proposal_strides=(4, 8, 16), proposal_min_size=8)  # fmt: skip


def detector(backbone: dict, head=None, **kwargs) -> PlainDETR:
    torch.manual_seed(0)
    head = {**HEAD, **(head or {})}
    return PlainDETR(backbone=dict(type='SpecViT', **backbone), head=head, **kwargs)


def batch(size, second=None, boxes=True):
    """Two images of ``size`` (the second ``second``, padded) with two boxes and none."""
    second = second or size
    g = torch.Generator().manual_seed(0)
    images = torch.zeros(2, 3, *size)
    images[0] = torch.randn(3, *size, generator=g)
    images[1, :, : second[0], : second[1]] = torch.randn(3, *second, generator=g)
    samples = []
    for hw in (size, second):
        s = DetDataSample(metainfo=dict(img_shape=hw, batch_input_shape=size))
        s.gt_instances = InstanceData(
            bboxes=torch.tensor([[2.0, 3.0, 20.0, 18.0], [10.0, 4.0, 30.0, 28.0]]),
            labels=torch.tensor([0, 2]),
        )
        samples.append(s)
    if not boxes:
        samples[1].gt_instances = InstanceData(
            bboxes=torch.zeros(0, 4), labels=torch.zeros(0, dtype=torch.long)
        )
    return images, samples
