# DINOv2 ViT-L/14 with 4 registers, its patch embedding resampled to 16 x 16, as EoMT uses it
# (tue-mps/eomt models/vit.py: timm.create_model('vit_large_patch14_reg4_dinov2', pretrained,
# img_size, patch_size=16), whose checkpoint filter resamples the 14 x 14 kernel (timm's
# resample_patch_embed, bicubic, antialiased) and the position table to the input's grid). The
# checkpoint is timm's weights resampled the same way (see the ledger row's convert command);
# timm's port has no CLS slot in the position table (no_embed_class), hence pos_embed_cls=False.
# Leaves set img_size to their crop: the loader resamples the 37 x 37 table to its grid once,
# as timm does at load time.
backbone = dict(
    type='SpecViT',
    img_size=512,
    patch_size=16,
    embed_dims=1024,
    num_layers=24,
    num_heads=16,
    mlp_ratio=4.0,
    layer_scale_init=1e-5,
    num_register_tokens=4,
    pos_embed_cls=False,
    pos_embed_interp='timm',
    out_indices=(23,),
    final_norm=True,
    drop_path_rate=0.0,
    init_cfg=dict(type='Pretrained', checkpoint='pretrain/vit-l16_dinov2-reg4.pth'),
)
