# ViT-Adapter's Mask2Former recipe for ADE20K at 896 (czczup/ViT-Adapter segmentation/configs/
# ade20k/mask2former_beit_adapter_large_896_80k_ade20k_ss.py; 16 GPUs x 1 image, 80k iterations:
# segmentation/configs/ade20k/README.md). Head at ViT-Adapter-L's size: 1024 channels, 200
# queries, 32 heads and FFN 4096 in the pixel decoder and the transformer decoder (the rest is
# mmseg's Mask2Former, configs/_base_/models/mask2former_vit-adapter.py). AdamW lr 2e-5, betas
# (0.9, 0.999), weight decay 0.05, layer-wise lr decay 0.9 (adapter modules at the base lr, as
# upstream's LayerDecayOptimizerConstructor leaves them); mmcv's lr_config policy='poly' power 1.0
# over all 80k iterations, multiplied during the first 1500 by a linear warmup from 1e-6 (as
# schedule_linear_40k.py composes DINOv2's); validation every 8000 iterations keeping the best
# mIoU.
# Leaves set the backbone's vit, interaction_indexes, deform_num_heads and decode_head.in_channels.
_base_ = [
    '../models/mask2former_vit-adapter.py',
    '../datasets/ade20k_vit-adapter-m2f_896x896.py',
    '../runtime_seg.py',
]
dims, heads, ffn = 1024, 32, 4096
attn = dict(embed_dims=dims, num_heads=heads)
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    # the adapter options every leaf shares (the ViT-g/14 DINOv2 leaf says where they come from);
    # leaves set vit, interaction_indexes and deform_num_heads (heads of width 64)
    backbone=dict(
        with_injector=True,
        conv_inplane=64,
        n_points=4,
        init_values=0.0,
        deform_ratio=0.5,
        cffn_ratio=0.25,
        add_vit_feature=True,
        use_extra_extractor=True,
        drop_path_rate=0.3,
        with_cp=True,
    ),
    decode_head=dict(
        feat_channels=dims,
        out_channels=dims,
        num_queries=200,
        pixel_decoder=dict(
            encoder=dict(
                layer_cfg=dict(
                    self_attn_cfg=attn, ffn_cfg=dict(embed_dims=dims, feedforward_channels=ffn)
                )
            ),
            positional_encoding=dict(num_feats=dims // 2),
        ),
        positional_encoding=dict(num_feats=dims // 2),
        transformer_decoder=dict(
            layer_cfg=dict(
                self_attn_cfg=attn,
                cross_attn_cfg=attn,
                ffn_cfg=dict(embed_dims=dims, feedforward_channels=ffn),
            )
        ),
    ),
    test_cfg=_base_.inference_cfg,
)
optim_wrapper = dict(
    type='FiniteLossOptimWrapper',
    optimizer=dict(type='AdamW', lr=2e-5, betas=(0.9, 0.999), weight_decay=0.05),
    constructor='LayerDecayOptimWrapperConstructor',
    paramwise_cfg=dict(decay_rate=0.9),
)
max_iters = 80000
warmup_iters = 1500
param_scheduler = [
    # mmengine's LinearLR reaches its end factor at step end - 1: 1 at 1500
    dict(type='LinearLR', start_factor=1e-6, by_epoch=False, begin=0, end=warmup_iters + 1),
    dict(type='PolyLR', power=1.0, eta_min=0.0, by_epoch=False, begin=0, end=max_iters),
]
train_cfg = dict(type='IterBasedTrainLoop', max_iters=max_iters, val_interval=8000)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=50, log_metric_by_epoch=False),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(
        type='CheckpointHook',
        by_epoch=False,
        interval=8000,
        max_keep_ckpts=1,
        save_best='mIoU',
        rule='greater',
    ),
    sampler_seed=dict(type='DistSamplerSeedHook'),
    visualization=dict(type='StoredOrderSegVisualizationHook'),
)
