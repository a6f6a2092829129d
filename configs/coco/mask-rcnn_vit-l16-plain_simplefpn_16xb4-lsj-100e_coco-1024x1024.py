# ViTDet Mask R-CNN (methods.md §5.5) with SpecViT-L/16 (MAE / DeiT-III-style checkpoints:
# tools/convert_checkpoint.py -> pretrain/). Techniques: change the second _base_ line.
# Not ViTDet: no relative position bias in the windowed attention.
_base_ = [
    '../_base_/models/backbones/vit-l16.py',
    '../_base_/models/techniques/plain.py',
    '../_base_/models/mask-rcnn_specvit_simplefpn.py',
    '../_base_/datasets/coco_instance_lsj-1024x1024.py',
    '../_base_/schedules/schedule_vitdet_lsj-100e.py',
    '../_base_/runtime_det.py',
]
model = dict(
    backbone=dict(_base_.backbone, **_base_.technique, out_indices=(23, ), final_norm=False,
                  window_size=14, global_attn_indexes=(5, 11, 17, 23), drop_path_rate=0.4),
    neck=dict(in_channels=_base_.backbone['embed_dims']))
optim_wrapper = dict(paramwise_cfg=dict(decay_rate=0.8))
