# DINOv2 depth protocol, lin.4: 4 layers, on NYU: frozen ViT-L/14.
# Checkpoint: tools/convert_checkpoint.py --format dinov2 on dinov2_vitl14_pretrain.pth.
_base_ = [
    '../_base_/models/backbones/vit-l14_dinov2.py',
    '../_base_/models/techniques/plain.py',
    '../_base_/models/depth_linear.py', '../_base_/datasets/nyu_depth.py',
    '../_base_/runtime_seg.py', '../_base_/schedules/schedule_depth_38k.py'
]
model = dict(
    backbone=dict(_base_.backbone, **_base_.technique, out_indices=(4, 11, 17, 23),
                  output_cls_token=True, final_norm=False, frozen_stages=24,
                  init_cfg=dict(type='Pretrained',
                                checkpoint='checkpoints/dinov2_vitl14.pth')),
    decode_head=dict(in_channels=1024, num_inputs=4, **_base_.depth_range),
    test_cfg=_base_.depth_test_cfg)
