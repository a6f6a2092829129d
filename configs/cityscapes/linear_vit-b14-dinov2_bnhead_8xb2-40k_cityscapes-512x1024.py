# DINOv2 linear probe ("lin."), ViT-B/14, Cityscapes: arXiv 2304.07193 Table 10. DINOv2
# published no Cityscapes config: the head, taps, optimizer and schedule are those of its
# ADE20K linear config (franchesoni/cheapseg configs/dinov2/
# original_dinov2_vitb14_ade20k_linear_config.py, a verbatim dump), the data pipeline is
# mmseg's Cityscapes one; every Cityscapes-specific value is "not found" in the ledger.
_base_ = [
    '../_base_/models/backbones/vit-b14_dinov2.py',
    '../_base_/models/linear_bnhead.py',
    '../_base_/datasets/cityscapes_512x1024.py',
    '../_base_/schedules/schedule_linear_40k.py',
    '../_base_/runtime_probe.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    backbone=dict(_base_.backbone, out_indices=[depth - 1], final_norm=True, frozen_stages=depth),
    decode_head=dict(in_channels=[dims], num_classes=_base_.num_classes),
    test_cfg=_base_.inference_cfg,
)
