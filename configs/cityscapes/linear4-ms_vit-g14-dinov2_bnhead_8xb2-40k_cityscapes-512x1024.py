# DINOv2 linear probe "+ms", ViT-g/14, Cityscapes: arXiv 2304.07193 Table 10 (last 4 layers,
# multi-scale test-time augmentation). No published Cityscapes config: the crop, the
# test scales (mmseg's Cityscapes 0.5-1.75 + flip) and the schedule (DINOv2's ADE20K
# linear one) are not found published and are our choice.
# Test: the published protocol always tests multi-scale + flip, so test_with_tta = True makes
# tools/test.py use tta_pipeline and tta_model (mmseg's softmax average) without --tta;
# validation during training stays single-scale.
_base_ = [
    '../_base_/models/backbones/vit-g14_dinov2.py',
    '../_base_/recipes/dinov2-linear_8xb2-40k_cityscapes-512x1024.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    backbone=dict(
        _base_.backbone,
        out_indices=list(range(depth - 4, depth)),
        final_norm=True,
        frozen_stages=depth,
    ),
    decode_head=dict(in_channels=[dims] * 4),
)
test_with_tta = True
