# Mask R-CNN as ViTDet (Li et al. 2022, arXiv 2203.16527): SimpleFPN from the last ViT map,
# RPN with 2 convs, 4conv1fc box head and mask head, LayerNorm-2d in neck and heads. Leaves fill
# in the backbone (a SpecViT fragment) and the neck's in_channels.
_base_ = ['mmdet::_base_/models/mask-rcnn_r50_fpn.py']
norm_cfg = dict(type='LN2d', eps=1e-6, requires_grad=True)
model = dict(
    backbone=dict(_delete_=True, type='SpecViT'),
    neck=dict(
        _delete_=True,
        type='SimpleFPN',
        in_channels=768,
        out_channels=256,
        scale_factors=(4.0, 2.0, 1.0, 0.5),
        num_outs=5,
        norm_cfg=norm_cfg,
    ),
    rpn_head=dict(num_convs=2),
    roi_head=dict(
        bbox_head=dict(type='Shared4Conv1FCBBoxHead', conv_out_channels=256, norm_cfg=norm_cfg),
        mask_head=dict(norm_cfg=norm_cfg),
    ),
)
