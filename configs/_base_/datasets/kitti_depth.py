# KITTI, Eigen split, BTS layout: raw/<date>/<drive>/image_02/data/*.png, depth PNGs
# (uint16 = metres * 256, 0 = no return) under data_depth_annotated/, split files
# eigen_{train,test}_files.txt with lines "<image> <depth> <focal>" (tools/prepare_data.py kitti).
# DINOv2's protocol, as its hosted KITTI config gives it (dinov2_vits14_kitti_linear, read in
# ywyue/FiT3D evaluation/baseline_configs/vitb_kitti_depth_linear_config.py) with the transforms
# of zhyever/Monocular-Depth-Estimation-Toolbox (depth/datasets/pipelines/transforms.py):
# KB crop (bottom 352 rows, centred 1216 columns), rotation +-2.5 deg (p 0.5), flip, random
# 352x704 crop, ColorAug (p 0.5; gamma, brightness and colour 0.9-1.1); 2 images per GPU.
# Test: the KB-cropped image and its flip (MultiScaleFlipAug at 1216x352), averaged.
# Metrics: 1e-3 < gt < 80 m inside the Garg crop, whose fractions the Toolbox's kitti.py
# (eval_kb_crop, eval_mask) applies to the KB-cropped 352x1216 ground truth: rows 143:349,
# cols 43:1172. Split: DINOv2 reads the Toolbox's kitti_eigen_{train,test}.txt lists.
dataset_type = 'KITTIDepthDataset'
data_root = 'data/kitti'
crop_size = (352, 704)
depth_range = dict(min_depth=1e-3, max_depth=80.0)
# Unit check of every depth PNG (CheckSampleFiles): the median valid depth in metres after /256
# lies in this range (the LiDAR sees the road from a few metres on), so a map written in metres
# (median ~0.05) stops with the file named instead of scoring nonsense.
depth_unit_range = (1.0, 80.0)
meta_keys = (
    'img_path',
    'depth_map_path',
    'ori_shape',
    'img_shape',
    'pad_shape',
    'scale_factor',
    'flip',
    'flip_direction',
    'crop_offset',
)
data_prefix = dict(img_path='raw', depth_map_path='data_depth_annotated')
# mmcv's loader, by the name mmseg's and mmdet's inferencers look for; images in their stored
# pixel order, EXIF orientation ignored (vitspec/datasets/image_orientation.py)
load_image = dict(type='LoadImageFromFile', color_type='color_ignore_orientation')
# every file of a sample is checked the first time the sample is read in a run, or taken from
# tools/check_data.py's record (vitspec/datasets/check_sample_files.py)
check_files = dict(type='CheckSampleFiles', depth_scale=256, depth_range=depth_unit_range)
train_pipeline = [
    load_image,
    check_files,
    dict(type='LoadDepthPNG', depth_scale=256),
    dict(type='KBCrop', height=352, width=1216),
    dict(type='RandomRotate', prob=0.5, degree=2.5, pad_val=0, seg_pad_val=0),
    dict(type='RandomFlip', prob=0.5),
    dict(type='RandomCrop', crop_size=crop_size),
    dict(
        type='ColorAug',
        prob=0.5,
        gamma_range=(0.9, 1.1),
        brightness_range=(0.9, 1.1),
        color_range=(0.9, 1.1),
    ),
    dict(type='PackSegInputs', meta_keys=meta_keys),
]
test_pipeline = [
    load_image,
    check_files,
    dict(type='LoadDepthPNG', depth_scale=256),
    dict(type='KBCrop', height=352, width=1216),
    dict(type='PackSegInputs', meta_keys=meta_keys),
]
# One window that covers the whole KB-cropped image (the backbone centre-pads it), plus its flip.
depth_test_cfg = dict(mode='slide_flip', crop_size=(352, 1216), stride=(352, 1216))
train_dataloader = dict(
    batch_size=2,
    num_workers=2,
    persistent_workers=True,
    sampler=dict(type='InfiniteSampler', shuffle=True),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file='eigen_train_files.txt',
        data_prefix=data_prefix,
        pipeline=train_pipeline,
    ),
)
val_dataloader = dict(
    batch_size=1,
    num_workers=2,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file='eigen_test_files.txt',
        data_prefix=data_prefix,
        test_mode=True,
        pipeline=test_pipeline,
    ),
)
test_dataloader = val_dataloader
val_evaluator = dict(type='DepthErrorMetric', crop='garg', **depth_range)
test_evaluator = val_evaluator
