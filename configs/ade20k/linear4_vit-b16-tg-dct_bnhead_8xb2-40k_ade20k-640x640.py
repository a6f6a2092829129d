# DINOv2 linear probe on the frozen last 4 layers ("+ms"; the multi-scale test is tta_pipeline +
# tta_model, not yet switched on by tools/test.py). Techniques: change the second _base_ line.
_base_ = [
    '../_base_/models/backbones/vit-b16.py',
    '../_base_/models/techniques/token_graying_dct.py',
    '../_base_/models/linear_bnhead.py',
    '../_base_/datasets/ade20k_640x640.py',
    '../_base_/schedules/schedule_linear_40k.py',
    '../_base_/runtime_seg.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    backbone=dict(_base_.backbone, **_base_.technique, out_indices=list(range(depth - 4, depth)),
                  frozen_stages=depth),
    decode_head=dict(in_channels=[dims] * 4, num_classes=_base_.num_classes),
    test_cfg=_base_.inference_cfg)
