# MAE ViT-B/16 + UPerNet, ADE20K 512x512 (arXiv 2111.06377 Table 5; its appendix A.4 trains 100
# epochs at batch 16 with a searched lr, where this recipe runs 160k iterations: see the ledger
# row). Recipe: open-mmlab/mmsegmentation v1.2.2
# configs/mae/mae-base_upernet_8xb2-amp-160k_ade20k-512x512.py with
# _base_/models/upernet_mae.py and _base_/datasets/ade20k.py: mmseg's MAE backbone (BEiT-style
# relative position bias per block, zero-initialised, over the 32x32 grid of 512 inputs plus the
# CLS entries; LayerScale init_values=1.0, absent from the MAE checkpoint and so starting at 1.0;
# no final norm; drop path 0.1; taps 3, 5, 7, 11), Feature2Pyramid, UPerHead 768 channels,
# auxiliary FCN on the third tap; AdamW 1e-4, wd 0.05, layer decay 0.65, warmup 1500, poly,
# 160k iterations of 8 GPUs x 2 images, mixed precision; slide 512 / 341 test. img_size 512 sets
# the relative-position grid (mmseg: img_size=(512, 512)); the checkpoint's 14x14 position
# embedding is resampled to 32x32 at load (bicubic, no antialiasing), as mmseg's MAE does.
_base_ = [
    '../_base_/models/backbones/vit-b16_mae.py',
    '../_base_/recipes/upernet_f2p_8xb2-amp-160k_ade20k-512x512.py',
]
depth, dims = _base_.backbone['num_layers'], _base_.backbone['embed_dims']
model = dict(
    backbone=dict(
        _base_.backbone,
        img_size=(512, 512),
        pos_embed_interp='vitdet',
        out_indices=[3, 5, 7, 11],
        final_norm=False,
        drop_path_rate=0.1,
        layer_scale_init=1.0,
        rel_pos_bias='table',
    ),
    neck=dict(embed_dim=dims),
    decode_head=dict(in_channels=[dims] * 4, channels=dims),
    auxiliary_head=dict(in_channels=dims),
)
