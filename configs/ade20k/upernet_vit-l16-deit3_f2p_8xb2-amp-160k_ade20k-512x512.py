# DeiT-III ViT-L/16 + UPerNet, ADE20K 512x512 (arXiv 2204.07118, its ADE20K table: UPerNet following
# BEiT's setting). The paper's segmentation settings could not be read and no DeiT-III
# segmentation config is published (facebookresearch/deit has none), so every protocol field is
# "not found" in the ledger. This config is a stand-in: mmsegmentation's MAE ViT-B UPerNet recipe
# (v1.2.2 configs/mae/mae-base_upernet_8xb2-amp-160k_ade20k-512x512.py) on the DeiT-III backbone
# as released (LayerScale from the checkpoint, no relative position bias), taps [7, 11, 15, 23] and
# drop path 0.2, lr 2e-5, layer decay 0.95 and warmup 3000 as mmseg's BEiT-L config (v1.2.2
# configs/beit/beit-large_upernet_8xb1-amp-160k_ade20k-640x640.py).
# Weights: deit_3_large_224_21k.pth (facebookresearch/deit README_revenge.md); which DeiT-III
# checkpoint the paper fine-tuned: not found.
_base_ = [
    '../_base_/models/backbones/vit-l16_deit3.py',
    '../_base_/recipes/upernet_f2p_8xb2-amp-160k_ade20k-512x512.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    backbone=dict(
        _base_.backbone,
        out_indices=[7, 11, 15, 23],
        final_norm=False,
        drop_path_rate=0.2,
        init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-l16_deit3.pth'),
    ),
    neck=dict(embed_dim=dims),
    decode_head=dict(in_channels=[dims] * 4, channels=dims),
    auxiliary_head=dict(in_channels=dims),
)
optim_wrapper = dict(optimizer=dict(lr=2e-5), paramwise_cfg=dict(decay_rate=0.95))
warmup_iters = 3000
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-6, by_epoch=False, begin=0, end=warmup_iters + 1),
    dict(type='PolyLR', power=1.0, eta_min=0.0, by_epoch=False, begin=warmup_iters, end=160000),
]
