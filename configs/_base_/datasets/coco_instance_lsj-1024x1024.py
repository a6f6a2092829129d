# COCO 2017 instances with large-scale jitter at 1024 (ViTDet, methods.md §5.5): resize by
# 0.1-2.0 of 1024, crop 1024, flip; test at 1024 on the long side. Both pad to 1024x1024 so
# the backbone's resampled position embedding sees one grid at train and test time.
dataset_type = 'CheckedCocoDataset'
data_root = 'data/coco/'
image_size = (1024, 1024)
pad = dict(type='FixedSizePad', size=image_size, pad_val=dict(img=(114, 114, 114)))
train_pipeline = [
    dict(type='CheckedLoadImageFromFile'),
    dict(type='LoadAnnotations', with_bbox=True, with_mask=True),
    dict(type='RandomResize', scale=image_size, ratio_range=(0.1, 2.0), keep_ratio=True),
    dict(type='RandomCrop', crop_type='absolute_range', crop_size=image_size,
         recompute_bbox=True, allow_negative_crop=True),
    dict(type='FilterAnnotations', min_gt_bbox_wh=(1e-2, 1e-2)),
    dict(type='RandomFlip', prob=0.5),
    pad,
    dict(type='PackDetInputs'),
]
test_pipeline = [
    dict(type='CheckedLoadImageFromFile'),
    dict(type='Resize', scale=image_size, keep_ratio=True),
    pad,
    dict(type='LoadAnnotations', with_bbox=True, with_mask=True),
    dict(type='PackDetInputs',
         meta_keys=('img_id', 'img_path', 'ori_shape', 'img_shape', 'scale_factor')),
]
train_dataloader = dict(
    batch_size=4, num_workers=8, persistent_workers=True,
    sampler=dict(type='InfiniteSampler', shuffle=True),
    dataset=dict(
        type=dataset_type, data_root=data_root,
        ann_file='annotations/instances_train2017.json', data_prefix=dict(img='train2017/'),
        filter_cfg=dict(filter_empty_gt=True, min_size=32), pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=1, num_workers=2, persistent_workers=True, drop_last=False,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(
        type=dataset_type, data_root=data_root,
        ann_file='annotations/instances_val2017.json', data_prefix=dict(img='val2017/'),
        test_mode=True, pipeline=test_pipeline))
test_dataloader = val_dataloader
val_evaluator = dict(
    type='CocoMetric', ann_file=data_root + 'annotations/instances_val2017.json',
    metric=['bbox', 'segm'], format_only=False)
test_evaluator = val_evaluator
