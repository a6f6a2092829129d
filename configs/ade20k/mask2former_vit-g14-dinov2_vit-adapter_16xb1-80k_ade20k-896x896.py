# DINOv2 ViT-g/14, frozen, + ViT-Adapter + Mask2Former, ADE20K: 60.2 mIoU (DINOv2, arXiv
# 2304.07193v2 §7.4 "Frozen backbone in a SOTA pipeline" and Table 10's caption: the adapter and
# head are tuned, the backbone frozen, 16 V100 GPUs for 28 hours). DINOv2's own config
# (dinov2_vitg14_ade20k_m2f_config.py) is only linked by URL from its notebook and could not be
# read: every other value is ViT-Adapter's ADE20K Mask2Former recipe (the recipe fragment) and
# ViT-Adapter-L's adapter settings (deform_ratio 0.5, drop path 0.3, deformable heads of width
# 64, with_cp) applied to 40 blocks in groups of 10; all marked
# 'not found' for DINOv2 in configs/ade20k/reproductions.yaml. DINOv2's released trained model
# (dinov2_vitg14_ade20k_m2f.pth: ViT-g, adapter and head) converts into this config with
# tools/convert_checkpoint.py --format dinov2 --head-config
# (vitspec/checkpoints/layouts/dinov2_m2f.py).
# GPU memory (computed, not measured): the frozen ViT-g in fp32 4.5 GB; adapter + head trainable.
_base_ = [
    '../_base_/models/backbones/vit-g14_dinov2.py',
    '../_base_/recipes/vit-adapter-m2f_16xb1-80k_ade20k-896x896.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    backbone=dict(
        # the position table resampled by size, as DINOv2's segmentation_m2f ViTAdapter does
        vit=dict(_base_.backbone, final_norm=False, frozen_stages=depth, pos_embed_interp='vitdet'),
        interaction_indexes=[9, 19, 29, 39],
        deform_num_heads=24,
    ),
    decode_head=dict(in_channels=[dims] * 4),
)
# The recipe's first stage: ViT-Adapter's config starts this ADE20K run from a Mask2Former trained
# 80k iterations on COCO-Stuff 164k (its load_from, mask2former_beit_adapter_large_896_80k_
# cocostuff164k; segmentation/configs/ade20k/README.md "strategy 2: COCO-Stuff 80k + ADE20K 80k").
# No COCO-Stuff-trained model of this network is released (whether DINOv2's 60.2 had that stage:
# not found): set cocostuff_checkpoint to an mmseg checkpoint of this model trained on COCO-Stuff
# to follow the recipe; None starts the adapter and head from scratch.
cocostuff_checkpoint = None
load_from = cocostuff_checkpoint
