# DINOv3's Mask2Former segmentation, ADE20K stage (arXiv 2508.10104 §6.3.2 and appendix D.10): a
# frozen DINOv3 ViT, its adapter (ViT-Adapter without injectors, learned BN on its outputs) and a
# Mask2Former head of 2048 channels, trained at 896 for 20k iterations (lr 3e-5, batch 16), tested
# by sliding 896 windows with stride 596 (config-ade20k-m2f-inference.yaml). DINOv3 first trains the
# decoder on COCO-Stuff (80k iterations at lr 1.5e-5) and Hypersim (10k at 2.5e-5); those stages are
# not configured here: start this one from a decoder trained so (load_from), or expect less than the
# published number. facebookresearch/dinov3's train.py trains linear heads only, so the losses and
# augmentations are not published (mmseg's Mask2Former losses, DINOv3's linear ADE20K augmentations
# at 896: see the fragments). Leaves set the backbone (type ViTAdapter, its vit frozen) and the
# head's in_channels.
_base_ = [
    '../models/mask2former_dinov3.py',
    '../datasets/ade20k_dinov3-m2f_896x896.py',
    '../schedules/schedule_dinov3_m2f_20k.py',
    '../runtime_seg.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    decode_head=dict(num_classes=_base_.num_classes),
    test_cfg=_base_.inference_cfg,
)
