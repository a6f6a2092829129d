# DINOv2 linear probe ("lin."), ViT-L/14, ADE20K: arXiv 2304.07193 Table 10 (the
# mIoU could not be read in the paper: see configs/reproductions.yaml).
# Protocol: the hosted dinov2_vit*14_ade20k_linear_config.py (facebookresearch/dinov2 links it
# from notebooks/semantic_segmentation.ipynb; read in the verbatim dump franchesoni/cheapseg
# configs/dinov2/original_dinov2_vitb14_ade20k_linear_config.py): frozen backbone, BNHead on the
# last block's patch tokens (out_indices [8, 9, 10, 11], in_index [3] there) after the final
# norm (the notebook feeds get_intermediate_layers(..., norm=True)), images centre-padded to a
# multiple of 14 (the notebook's CenterPadding), 40k iterations of 8 GPUs x 2 images.
_base_ = [
    '../_base_/models/backbones/vit-l14_dinov2.py',
    '../_base_/models/linear_bnhead.py',
    '../_base_/datasets/ade20k_dinov2_512x512.py',
    '../_base_/schedules/schedule_linear_40k.py',
    '../_base_/runtime_probe.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    backbone=dict(_base_.backbone, out_indices=[depth - 1], final_norm=True, frozen_stages=depth),
    decode_head=dict(in_channels=[dims], num_classes=_base_.num_classes),
    test_cfg=_base_.inference_cfg,
)
