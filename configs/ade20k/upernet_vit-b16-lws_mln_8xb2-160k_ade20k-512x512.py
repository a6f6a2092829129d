# Full fine-tuning: UPerNet over a MultiLevelNeck, layer-wise lr decay. Techniques: change the
# second _base_ line.
_base_ = [
    '../_base_/models/backbones/vit-b16.py',
    '../_base_/models/techniques/layerwise_scaling.py',
    '../_base_/models/upernet_mln.py',
    '../_base_/datasets/ade20k_512x512.py',
    '../_base_/schedules/schedule_layer_decay_160k.py',
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
