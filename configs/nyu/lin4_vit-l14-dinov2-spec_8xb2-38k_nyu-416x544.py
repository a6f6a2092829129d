# Layer specialization vs plain on ViT-L, DINOv2's depth probe (NYU-Depth v2 lin. 4): the results
# the specialization summary states for ViT-L (RMSE lower, no number; arXiv 2602.08626, whose own
# tables could not be read: its protocol is "not found" in the ledger, DINOv2's lin. 4 probe is the
# closest published one). The twin configs lin4_vit-l14-dinov2-{plain,spec}_... differ only in the
# technique line and the checkpoint. A frozen probe measures the pretrained features only, so the
# checkpoint must come from pretraining with the technique.
# pretrain/vit-l14_dinov2-spec.pth is a ViT-L/14 PRETRAINED WITH layer specialization (DINOv2
# recipe); the paper's weights are not released, so pretrain your own.
_base_ = [
    './lin4_vit-l14-dinov2_8xb2-38k_nyu-416x544.py',
    '../_base_/models/techniques/specialized.py',
]
model = dict(
    backbone=dict(
        _base_.technique,
        init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-l14_dinov2-spec.pth'),
    )
)
