# Full fine-tuning: UPerNet over a MultiLevelNeck, layer-wise lr decay. Techniques: change the
# second _base_ line.
_base_ = [
    '../_base_/models/backbones/vit-l16.py',
    '../_base_/models/techniques/token_graying_dct.py',
    '../_base_/models/upernet_mln.py',
    '../_base_/datasets/cityscapes_512x1024.py',
    '../_base_/schedules/schedule_layer_decay_80k.py',
    '../_base_/runtime_seg.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    backbone=dict(_base_.backbone, **_base_.technique),
    neck=dict(in_channels=[dims] * 4, out_channels=dims),
    decode_head=dict(in_channels=[dims] * 4, num_classes=_base_.num_classes),
    auxiliary_head=dict(in_channels=dims, num_classes=_base_.num_classes),
    test_cfg=_base_.inference_cfg)
