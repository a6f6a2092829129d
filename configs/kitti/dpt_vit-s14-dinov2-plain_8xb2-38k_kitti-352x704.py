# DINOv2 depth protocol, DPT on 4 layers, on KITTI: frozen ViT-S/14.
# Checkpoint: tools/convert_checkpoint.py --format dinov2 on dinov2_vits14_pretrain.pth.
_base_ = [
    '../_base_/models/backbones/vit-s14_dinov2.py',
    '../_base_/models/techniques/plain.py',
    '../_base_/models/depth_dpt.py', '../_base_/datasets/kitti_depth.py',
    '../_base_/runtime_seg.py', '../_base_/schedules/schedule_depth_38k.py'
]
model = dict(
    backbone=dict(_base_.backbone, **_base_.technique, out_indices=(2, 5, 8, 11),
                  output_cls_token=True, final_norm=False, frozen_stages=12,
                  init_cfg=dict(type='Pretrained',
                                checkpoint='checkpoints/dinov2_vits14.pth')),
    decode_head=dict(embed_dims=384, **_base_.depth_range),
    test_cfg=_base_.depth_test_cfg)
