# DINOv3 ViT-7B/16 + DINOv3's adapter (no injectors) + Mask2Former, ADE20K: DINOv3 (arXiv
# 2508.10104) Table 11, 62.6 mIoU single-scale (63.0 with TTA: tools/test.py --tta). Its released
# head (hub/segmentors.py dinov3_vit7b16_ms, dinov3_vit7b16_ade20k_m2f_head-bf307cb1.pth) converts
# with tools/convert_checkpoint.py --format dinov3 --head-config
# (configs/ade20k/released_heads.yaml). The adapter as dinov3/eval/segmentation/models/__init__.py
# builds it for 'm2f': DINOv3_Adapter with interaction_indexes FOUR_EVEN_INTERVALS (blocks 9, 19,
# 29, 39 of 40) and its defaults (dinov3_adapter.py): conv_inplane 64, n_points 4, deform_num_heads
# 16, drop_path_rate 0.3, with_cffn, cffn_ratio 0.25, deform_ratio 0.5, add_vit_feature,
# use_extra_extractor, with_cp, SyncBN output norms; it reads the ViT's tokens after its final norm
# (get_intermediate_layers norm=True) and freezes the ViT (D.10: layers [10, 20, 30, 40], final
# layer norm, learned BN). GPU memory, computed (no GPU here, not measured): parameters 6.72B ViT
# (frozen), 0.23B adapter, 0.70B head (counted on the built model; Table 11: 927M). Evaluation (no
# gradients): the weights in fp32 30.6 GB (ViT 26.9 GB, or 13.4 GB in bf16) plus a few GB of
# transient maps per 896x896 window, about 34 GB: a 40 GB GPU at most, 48 / 80 GB comfortably.
# Training in fp32: weights 30.6 GB, the trainable 0.93B's gradients and AdamW states 11.1 GB, and
# the tensors saved for backward, about 26 GB per 896x896 image (head 22.6 GB, adapter 3.0 GB with
# with_cp; measured on CPU at 224 and 320 and extrapolated linearly in the pixel count): about 93 GB
# at 2 images per GPU, more than an 80 GB H100; 1 image per GPU (about 67 GB) or bf16 autocast
# (about half the saved tensors) fits. Precision: the frozen ViT runs under bfloat16 autocast
# (vit_autocast), as DINOv3's adapter forward does in training and evaluation; the adapter and
# head in the run's own precision (fp32 unless tools/train.py --amp). The memory above is fp32's.
_base_ = [
    '../_base_/models/backbones/vit-7b16_dinov3.py',
    '../_base_/recipes/dinov3-m2f_8xb2-20k_ade20k-896x896.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    backbone=dict(
        type='ViTAdapter',
        vit=dict(_base_.backbone, final_norm=True, frozen_stages=depth),
        interaction_indexes=[9, 19, 29, 39],
        with_injector=False,
        conv_inplane=64,
        n_points=4,
        deform_num_heads=16,
        drop_path_rate=0.3,
        with_cffn=True,
        cffn_ratio=0.25,
        deform_ratio=0.5,
        add_vit_feature=True,
        use_extra_extractor=True,
        norm_cfg=dict(type='SyncBN', requires_grad=True),
        with_cp=True,
        vit_autocast='bfloat16',
    ),
    decode_head=dict(in_channels=[dims] * 4),
)
