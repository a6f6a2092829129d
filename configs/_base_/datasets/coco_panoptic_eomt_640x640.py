# COCO panoptic in EoMT's protocol (tue-mps/eomt datasets/coco_panoptic.py, datasets/transforms.py;
# test: training/lightning_module.py resize_and_pad_imgs_instance_panoptic). Train, in upstream's
# order: flip 0.5, scale jitter (the image fitted into 640 x 640, times 0.1-2.0: mmdet's
# keep_ratio resize to (640, 640) x ratio is the same rule), pad the 0-255 image with 0 at the
# bottom / right (masks: none; stuff map: VOID), random 640 crop; colour jitter off (the data
# module's default); Pillow resizes as torchvision's antialiased resize and upstream's PIL test
# resize do. Crowd segments are no training target (upstream filters is_crowd). Test:
# the image fitted into 640 x 640, padded with 0 at the bottom / right to 640 x 640 (FixedSizePad
# keeps img_shape, so the post-processing crops the padding away and resizes to the image).
# Labels: the 80 things then the 53 stuff classes in id order (upstream's CLASS_MAPPING).
# Batch 16 = 4 GPUs x 4 (upstream's README). What differs: docs/mask_classification.md.
dataset_type = 'CheckedCocoPanopticDataset'
data_root = 'data/coco/'
image_size = (640, 640)
# ImageNet's statistics (upstream's ViT.pixel_mean / pixel_std on image / 255)
data_preprocessor = dict(
    type='DetDataPreprocessor',
    mean=[123.675, 116.28, 103.53],
    std=[58.395, 57.12, 57.375],
    bgr_to_rgb=True,
    pad_size_divisor=16,
    pad_mask=True,
    mask_pad_value=0,
    pad_seg=True,
    seg_pad_value=255,
)
pad = dict(type='FixedSizePad', size=image_size, pad_val=dict(img=(0, 0, 0), seg=255))
# mmcv's loader, by the name mmseg's and mmdet's inferencers look for; images in their stored
# pixel order, EXIF orientation ignored (vitspec/datasets/image_orientation.py)
load_image = dict(type='LoadImageFromFile', color_type='color_ignore_orientation')
# every file of a sample is checked the first time the sample is read in a run, or taken from
# tools/check_data.py's record (vitspec/datasets/check_sample_files.py)
check_files = dict(type='CheckSampleFiles')
train_pipeline = [
    load_image,
    check_files,
    dict(type='LoadPanopticPNG', with_bbox=True, with_mask=True, with_seg=True),
    dict(type='RandomFlip', prob=0.5),
    dict(
        type='RandomResize',
        scale=image_size,
        ratio_range=(0.1, 2.0),
        keep_ratio=True,
        backend='pillow',
    ),
    dict(
        type='RandomCrop',
        crop_size=image_size,
        crop_type='absolute',
        recompute_bbox=True,
        allow_negative_crop=True,
    ),
    pad,
    dict(type='PackDetInputs'),
]
test_pipeline = [
    load_image,
    check_files,
    dict(type='Resize', scale=image_size, keep_ratio=True, backend='pillow'),
    pad,
    dict(
        type='PackDetInputs',
        meta_keys=(
            'img_id',
            'img_path',
            'ori_shape',
            'img_shape',
            'scale_factor',
            'seg_map_path',
            'segments_info',
        ),
    ),
]
train_dataloader = dict(
    batch_size=4,
    num_workers=4,
    persistent_workers=True,
    sampler=dict(type='InfiniteSampler', shuffle=True),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file='annotations/panoptic_train2017.json',
        data_prefix=dict(img='train2017/', seg='annotations/panoptic_train2017/'),
        filter_cfg=dict(filter_empty_gt=False),
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
        ann_file='annotations/panoptic_val2017.json',
        data_prefix=dict(img='val2017/', seg='annotations/panoptic_val2017/'),
        test_mode=True,
        pipeline=test_pipeline,
    ),
)
test_dataloader = val_dataloader
val_evaluator = dict(type='PanopticQualityMetric')
test_evaluator = val_evaluator
