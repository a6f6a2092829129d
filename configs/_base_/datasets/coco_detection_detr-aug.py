# COCO 2017 boxes with DETR's augmentation, as detrex trains DINO (IDEA-Research/detrex
# configs/common/data/coco_detr.py, DetrDatasetMapper): flip, then with probability 1/2 either a
# shortest-edge resize to one of 480-800 (step 32, long side at most 1333), or a resize to
# 400 / 500 / 600, a random 384-600 crop and the same 480-800 resize; test: shortest edge 800,
# long side at most 1333. In mmdet's configs/dino/dino-4scale_r50_8xb2-12e_coco.py layout; total
# batch 16 (detrex dataloader.train.total_batch_size = 16) = 8 GPUs x 2.
dataset_type = 'CheckedCocoDataset'
data_root = 'data/coco/'
scales = [(s, 1333) for s in range(480, 801, 32)]
train_pipeline = [
    dict(type='CheckedLoadImageFromFile'),
    dict(type='LoadAnnotations', with_bbox=True),
    dict(type='RandomFlip', prob=0.5),
    dict(
        type='RandomChoice',
        transforms=[
            [dict(type='RandomChoiceResize', scales=scales, keep_ratio=True)],
            [
                # detectron2's ResizeShortestEdge((400, 500, 600)) has no long-side limit
                dict(
                    type='RandomChoiceResize',
                    scales=[(400, 4200), (500, 4200), (600, 4200)],
                    keep_ratio=True,
                ),
                dict(
                    type='RandomCrop',
                    crop_type='absolute_range',
                    crop_size=(384, 600),
                    allow_negative_crop=True,
                ),
                dict(type='RandomChoiceResize', scales=scales, keep_ratio=True),
            ],
        ],
    ),
    dict(type='PackDetInputs'),
]
test_pipeline = [
    dict(type='CheckedLoadImageFromFile'),
    dict(type='Resize', scale=(1333, 800), keep_ratio=True),
    dict(type='LoadAnnotations', with_bbox=True),
    dict(
        type='PackDetInputs',
        meta_keys=('img_id', 'img_path', 'ori_shape', 'img_shape', 'scale_factor'),
    ),
]
train_dataloader = dict(
    batch_size=2,
    num_workers=2,
    persistent_workers=True,
    sampler=dict(type='InfiniteSampler', shuffle=True),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file='annotations/instances_train2017.json',
        data_prefix=dict(img='train2017/'),
        # get_detection_dataset_dicts(filter_empty=True): images without annotations are left out
        filter_cfg=dict(filter_empty_gt=True),
        pipeline=train_pipeline,
    ),
)
val_dataloader = dict(
    batch_size=1,
    num_workers=2,
    persistent_workers=True,
    drop_last=False,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file='annotations/instances_val2017.json',
        data_prefix=dict(img='val2017/'),
        test_mode=True,
        pipeline=test_pipeline,
    ),
)
test_dataloader = val_dataloader
val_evaluator = dict(type='DatasetCocoMetric', metric='bbox', format_only=False)
test_evaluator = val_evaluator
