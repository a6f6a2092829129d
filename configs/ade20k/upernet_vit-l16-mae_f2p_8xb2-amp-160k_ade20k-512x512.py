# MAE ViT-L/16 + UPerNet, ADE20K 512x512 (arXiv 2111.06377 Table 5). No published ViT-L config
# was found (mmsegmentation ships the ViT-B one only; the MAE paper's appendix A.4 gives 100 epochs
# at batch 16, an lr searched per entry and zero-initialised relative position bias, no config),
# so every ViT-L-specific value is "not found" in the ledger. This config is the ViT-B recipe
# (configs/mae/mae-base_upernet_8xb2-amp-160k_ade20k-512x512.py: relative position bias,
# LayerScale 1.0, no final norm, Feature2Pyramid, UPerHead at the backbone width, 512 crops,
# 8x2 images, 160k iterations, AMP) with the large-model values of mmsegmentation's BEiT-L
# UPerNet config (v1.2.2 configs/beit/beit-large_upernet_8xb1-amp-160k_ade20k-640x640.py): taps
# 7, 11, 15, 23, drop path 0.2, lr 2e-5, layer decay 0.95, warmup 3000. ViT-B's decay 0.65 over
# 26 depths would leave the patch embedding 0.65^25 = 2e-5 of the lr.
_base_ = [
    '../_base_/models/backbones/vit-l16_mae.py',
    '../_base_/recipes/upernet_f2p_8xb2-amp-160k_ade20k-512x512.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    backbone=dict(
        _base_.backbone,
        img_size=(512, 512),
        pos_embed_interp='vitdet',
        out_indices=[7, 11, 15, 23],
        final_norm=False,
        drop_path_rate=0.2,
        layer_scale_init=1.0,
        rel_pos_bias='table',
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
