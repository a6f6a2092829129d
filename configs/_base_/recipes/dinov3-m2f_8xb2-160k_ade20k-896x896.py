# DINOv3's Mask2Former segmentation, ADE20K stage: a frozen DINOv3 ViT, DINOv3's adapter
# (ViT-Adapter without injectors) and its Mask2Former head (hidden 2048), tested at 896 as
# config-ade20k-m2f-inference.yaml (see the fragments). DINOv3 (arXiv 2508.10104) trains this
# head on COCO-Stuff, then Hypersim, then ADE20K; only the ADE20K stage is configured here, and its
# training values (schedule, batch, crop) are not published in facebookresearch/dinov3, whose
# train.py trains linear heads only: the schedule is mmseg's Mask2Former ADE20K one, the batch 8 x 2
# DINOv3's segmentation default (config.py bs 2, n_gpus 8), the crop the test window. Leaves set
# the backbone (type ViTAdapter, its vit frozen) and the head's in_channels.
_base_ = [
    '../models/mask2former_dinov3.py',
    '../datasets/ade20k_dinov3-m2f_896x896.py',
    '../schedules/schedule_mask2former_160k.py',
    '../runtime_seg.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    decode_head=dict(num_classes=_base_.num_classes),
    test_cfg=_base_.inference_cfg,
)
