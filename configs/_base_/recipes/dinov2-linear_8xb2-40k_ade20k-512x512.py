# DINOv2 linear probe ("lin.") on ADE20K, arXiv 2304.07193 Table 10.
# Protocol: the hosted dinov2_vit*14_ade20k_linear_config.py (facebookresearch/dinov2 links it
# from notebooks/semantic_segmentation.ipynb; read in the verbatim dump franchesoni/cheapseg
# configs/dinov2/original_dinov2_vitb14_ade20k_linear_config.py): frozen backbone, BNHead on the
# last block's patch tokens (out_indices [8, 9, 10, 11], in_index [3] there) after the final
# norm (the notebook feeds get_intermediate_layers(..., norm=True)), images centre-padded to a
# multiple of 14 (the notebook's CenterPadding), 40k iterations of 8 GPUs x 2 images.
# Leaves set the backbone, its taps, final norm and frozen stages, and the head's in_channels.
_base_ = [
    '../models/linear_bnhead.py',
    '../datasets/ade20k_dinov2_512x512.py',
    '../schedules/schedule_linear_40k.py',
    '../runtime_probe.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    decode_head=dict(num_classes=_base_.num_classes),
    test_cfg=_base_.inference_cfg,
)
