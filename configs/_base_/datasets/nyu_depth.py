# NYU-Depth v2 in mmseg's NYUDataset layout: images/{train,test}/*.jpg and
# annotations/{train,test}/*.png (16-bit, millimetres, 0 = no measurement), 480x640.
# DINOv2's protocol, as its hosted NYU configs give it (dinov2_vitl14_nyu_dpt_config.py, a
# verbatim dump in the code index; dinov2_vits14_nyu_linear, read in ywyue/FiT3D
# evaluation/baseline_configs/vitb_nyu_depth_linear_config.py) with the transforms of
# zhyever/Monocular-Depth-Estimation-Toolbox (depth/datasets/pipelines/transforms.py):
# NYUCrop (rows 45:472, cols 43:608), rotation +-2.5 deg (p 0.5), flip, random 416x544 crop,
# ColorAug (p 0.5; gamma 0.9-1.1, brightness 0.75-1.25, colour 0.9-1.1); 2 images per GPU.
# Test: the whole 480x640 image and its flip (MultiScaleFlipAug at 480x640), averaged.
# Metrics: 1e-3 < gt < 10 m inside the Eigen crop 45:471, 41:601 (the Toolbox's nyu.py).
# Split: DINOv2 reads the Toolbox's nyu_train.txt / nyu_test.txt lists; this layout holds the pairs
# they name, as tools/prepare_data.py nyu (or mmseg's tools/dataset_converters/nyu.py) writes it.
dataset_type = 'NYUDataset'
data_root = 'data/nyu'
crop_size = (416, 544)
depth_range = dict(min_depth=1e-3, max_depth=10.0)
# Unit check of every depth PNG (CheckSampleFiles): the median valid depth in metres after /1000
# lies in this range (Kinect: about 0.5-10 m), so a map written in metres (median ~0.003 after
# scaling) stops with the file named instead of scoring abs_rel in the thousands.
depth_unit_range = (0.1, 10.0)
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
# mmcv's loader, by the name mmseg's and mmdet's inferencers look for; images in their stored
# pixel order, EXIF orientation ignored (vitspec/datasets/image_orientation.py)
load_image = dict(type='LoadImageFromFile', color_type='color_ignore_orientation')
# every file of a sample is checked the first time the sample is read in a run, or taken from
# tools/check_data.py's record (vitspec/datasets/check_sample_files.py)
check_files = dict(type='CheckSampleFiles', depth_scale=1000, depth_range=depth_unit_range)
train_pipeline = [
    load_image,
    check_files,
    dict(type='LoadDepthPNG', depth_scale=1000),
    dict(type='RegionCrop', region='nyu_train'),
    dict(type='RandomRotate', prob=0.5, degree=2.5, pad_val=0, seg_pad_val=0),
    dict(type='RandomFlip', prob=0.5),
    dict(type='RandomCrop', crop_size=crop_size),
    dict(
        type='ColorAug',
        prob=0.5,
        gamma_range=(0.9, 1.1),
        brightness_range=(0.75, 1.25),
        color_range=(0.9, 1.1),
    ),
    dict(type='PackSegInputs', meta_keys=meta_keys),
]
test_pipeline = [
    load_image,
    check_files,
    dict(type='LoadDepthPNG', depth_scale=1000),
    dict(type='PackSegInputs', meta_keys=meta_keys),
]
# One window that covers the whole image (the backbone centre-pads it), plus its flip.
depth_test_cfg = dict(mode='slide_flip', crop_size=(480, 640), stride=(480, 640))
train_dataloader = dict(
    batch_size=2,
    num_workers=2,
    persistent_workers=True,
    sampler=dict(type='InfiniteSampler', shuffle=True),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        data_prefix=dict(img_path='images/train', depth_map_path='annotations/train'),
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
        test_mode=True,
        data_prefix=dict(img_path='images/test', depth_map_path='annotations/test'),
        pipeline=test_pipeline,
    ),
)
test_dataloader = val_dataloader
val_evaluator = dict(type='DepthErrorMetric', crop='nyu_eigen', **depth_range)
test_evaluator = val_evaluator
