# Plain-DETR / DINOv3's detector (PlainDETR) shrunk to train on CPU in minutes:
# tools/dist_train.sh <this config> 2 on the procedural COCO-layout demo data. The tiny stride-8
# ViT trains (from scratch, nothing frozen); its 2 taken blocks feed a 64-wide head with one
# encoder layer, 2 decoder layers, 30 + 60 queries and proposals at strides 4-32 of 16 px and up
# (the source's 50 px at stride 8 is for COCO's 800-1333 px images). Boxes only.
_base_ = [
    '../_base_/models/backbones/specvit-tiny-p8.py',
    '../_base_/models/plain-detr_specvit.py',
    '../_base_/datasets/demo_coco.py',
    '../_base_/schedules/schedule_demo.py',
    '../_base_/runtime_det.py',
]
model = dict(
    data_preprocessor=dict(pad_size_divisor=8),
    backbone=dict(_base_.backbone, img_size=160, out_indices=(2, 5)),
    head=dict(
        num_classes=5,
        dims=64,
        num_heads=4,
        ffn_dims=128,
        num_encoder_layers=1,
        encoder_ffn_dims=128,
        encoder_dropout=0.0,
        num_decoder_layers=2,
        num_queries=30,
        num_queries_one2many=60,
        rpb_hidden=64,
        proposal_strides=(4, 8, 16, 32),
        proposal_min_size=16,
    ),
    test_cfg=dict(topk=50),
)
val_evaluator = dict(metric='bbox')
test_evaluator = val_evaluator
max_iters = 800
optim_wrapper = dict(optimizer=dict(lr=2e-4), clip_grad=dict(max_norm=0.1))  # Plain-DETR's
warmup_iters = 50
param_scheduler = [
    dict(type='LinearLR', start_factor=1e-3, by_epoch=False, begin=0, end=warmup_iters + 1),
    dict(type='PolyLR', power=1.0, eta_min=0.0, by_epoch=False, begin=warmup_iters, end=max_iters),
]
train_cfg = dict(max_iters=max_iters, val_interval=max_iters)
default_hooks = dict(
    checkpoint=dict(interval=max_iters), visualization=dict(type='StoredOrderDetVisualizationHook')
)
randomness = dict(seed=0)
