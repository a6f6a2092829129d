# Layer specialization vs plain, DINOv2 linear protocol ("lin.", ADE20K): arXiv 2602.08626
# ("Revisiting [CLS] and Patch Token Interaction in Vision Transformers"; its tables could not be
# read: values "not found" in the ledger). The twin configs linear_vit-b14-dinov2-{plain,spec}_...
# differ only in the technique line and the checkpoint; the probe itself is DINOv2's linear one
# (hosted dinov2_vitb14_ade20k_linear_config.py, read in franchesoni/cheapseg configs/dinov2/
# original_dinov2_vitb14_ade20k_linear_config.py). A frozen probe measures the pretrained
# features only, so the checkpoint must come from pretraining with the technique.
# pretrain/vit-b14_dinov2-plain.pth is a plain ViT-B/14 pretrained with the SAME recipe as the
# specialized one (the paper's baseline is not released either). The released DINOv2 weights are
# the reproduction config linear_vit-b14-dinov2_bnhead_8xb2-40k_ade20k-512x512.py.
_base_ = [
    './linear_vit-b14-dinov2_bnhead_8xb2-40k_ade20k-512x512.py',
    '../_base_/models/techniques/plain.py',
]
model = dict(
    backbone=dict(
        _base_.technique,
        init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-b14_dinov2-plain.pth'),
    )
)
