# DINO on ViTDet's ViT with a simple feature pyramid, COCO, 12 epochs, as detrex trains it
# (IDEA-Research/detrex projects/dino/configs/dino-vitdet/dino_vitdet_base_4scale_12ep.py, its
# model models/dino_vitdet.py on models/dino_r50.py, and configs/common/{data/coco_detr.py,
# optim.py, coco_schedule.py, train.py}). Leaves add a MAE backbone fragment (vit-{b,l}16_mae.py)
# and the per-size settings: dict(_base_.backbone, **_base_.vitdet_backbone, drop_path_rate=...,
# global_attn_indexes=..., out_indices=(last block, )), the pyramid's in_channels, and the
# schedule where it differs (ViT-L: warmup; 50 epochs).
_base_ = [
    '../models/dino-4scale_specvit_simplefpn.py',
    '../datasets/coco_detection_detr-aug.py',  # detrex configs/common/data/coco_detr.py's pipeline
    '../runtime_det.py',
]
train_dataloader = dict(
    batch_size=2,  # dataloader.train.total_batch_size = 16: 8 GPUs x 2
    # detrex get_detection_dataset_dicts(filter_empty=True): images without annotations left out
    dataset=dict(filter_cfg=dict(filter_empty_gt=True)),
)
# dino_vitdet.py ViT(...) on detectron2/modeling/backbone/vit.py, the backbone of ViTDet's Mask
# R-CNN recipe (mask-rcnn_vitdet_simplefpn_*.py vitdet_backbone): img_size=1024, window 14,
# use_rel_pos=True, no CLS token, no final norm; out_feature='last_feat'. Its square_pad=1024 is
# not applied: detrex's DINO pads with ImageList.from_tensors(images), without padding_constraints
vitdet_backbone = dict(
    img_size=1024,  # ViT(img_size=1024): the global blocks' relative position grid
    pretrain_img_size=224,  # ViT default: pos_embed kept at the 14x14 pretraining grid ...
    pos_embed_interp='vitdet',  # ... and resampled to the input grid each forward (get_abs_pos)
    with_cls_token=False,  # no CLS token; the checkpoint's CLS slot is dropped
    pos_embed_cls=False,  # (ViT default pretrain_use_cls_token=True)
    rel_pos_bias='decomposed',  # use_rel_pos=True, rel_pos_zero_init=True (ViT default)
    window_size=14,
    window_padding='zeros',  # window_partition pads the normed tokens with zeros
    final_norm=False,  # ViTDet's ViT has no final norm
)
# detrex configs/common/optim.py AdamW (lr 1e-4, betas (0.9, 0.999)) with the dino-vitdet
# settings: weight_decay=1e-4, lr_factor_func 0.1 for every parameter under model.backbone,
# which in detrex is the SimpleFeaturePyramid around the ViT (here backbone + the pyramid, the
# first neck); get_default_optimizer_params(weight_decay_norm=0.0): no weight decay for the
# parameters of nn.LayerNorm / nn.GroupNorm modules, decay for everything else (biases,
# pos_embed, embeddings, and the pyramid's LayerNorm-2d, detectron2's own LayerNorm class).
# No layer-wise lr decay. Gradient clipping: train.clip_grad max_norm=0.1, norm_type=2.
# No mixed precision (common/train.py amp.enabled=False).
optim_wrapper = dict(
    type='FiniteLossOptimWrapper',
    optimizer=dict(type='AdamW', lr=1e-4, betas=(0.9, 0.999), weight_decay=1e-4),
    clip_grad=dict(max_norm=0.1, norm_type=2),
    constructor='LayerDecayOptimWrapperConstructor',
    paramwise_cfg=dict(
        decay_rate=1.0,
        lr_mults={r'^(backbone|neck\.necks\.0)\.': 0.1},
        no_decay_regex=r'^backbone\.(blocks\.\d+\.norm[12]\.|norm\.)'
        r'|^neck\.necks\.1\.convs\.\d+\.gn\.'
        r'|^(encoder|decoder)\.layers\.\d+\.norms\.\d+\.'
        r'|^decoder\.norm\.|^memory_trans_norm\.',
    ),
)
# coco_schedule.py lr_multiplier_12ep = default_coco_scheduler(12, 11, 0): 12 x 7500 = 90,000
# iterations at batch 16, x0.1 after 11 x 7500 = 82,500, no warmup (train.max_iter = 90000).
max_iters = 90000
param_scheduler = [
    dict(type='MultiStepLR', by_epoch=False, begin=0, end=max_iters, milestones=[82500], gamma=0.1)
]
# train.eval_period = 5000, train.checkpointer.period = 5000, train.log_period = 20
train_cfg = dict(type='IterBasedTrainLoop', max_iters=max_iters, val_interval=5000)
val_cfg = dict(type='ValLoop')
test_cfg = dict(type='TestLoop')
default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=20, log_metric_by_epoch=False),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='CheckpointHook', by_epoch=False, interval=5000, max_keep_ckpts=2),
    sampler_seed=dict(type='DistSamplerSeedHook'),
    visualization=dict(type='StoredOrderDetVisualizationHook'),
)
# The lr above is for a total batch of 16; --cfg-options auto_scale_lr.enable=True rescales it.
auto_scale_lr = dict(enable=False, base_batch_size=16)
