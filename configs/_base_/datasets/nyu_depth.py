# NYU-Depth v2 in mmseg's NYUDataset layout: images/{train,test}/*.jpg and
# annotations/{train,test}/*.png (16-bit, millimetres, 0 = no measurement), 480x640.
# DINOv2 protocol: train crops 416x544 inside the Eigen box, rotation +-2.5 deg, flip, colour
# jitter (PhotoMetricDistortion, mild, in place of DINOv2's ColorAug); test on the whole image
# and its flip; metrics on 1e-3 < d < 10 m inside the Eigen crop 45:471, 41:601.
dataset_type = 'NYUDataset'
data_root = 'data/nyu'
crop_size = (416, 544)
depth_range = dict(min_depth=1e-3, max_depth=10.0)
meta_keys = ('img_path', 'depth_map_path', 'ori_shape', 'img_shape', 'pad_shape',
             'scale_factor', 'flip', 'flip_direction', 'crop_offset')
train_pipeline = [
    dict(type='CheckedLoadImageFromFile'),
    dict(type='LoadDepthPNG', depth_scale=1000),
    dict(type='RegionCrop', region='nyu_eigen'),
    dict(type='RandomRotate', prob=0.5, degree=2.5, pad_val=0, seg_pad_val=0),
    dict(type='RandomCrop', crop_size=crop_size),
    dict(type='RandomFlip', prob=0.5),
    dict(type='PhotoMetricDistortion', brightness_delta=16, contrast_range=(0.9, 1.1),
         saturation_range=(0.9, 1.1), hue_delta=5),
    dict(type='PackSegInputs', meta_keys=meta_keys),
]
test_pipeline = [
    dict(type='CheckedLoadImageFromFile'),
    dict(type='LoadDepthPNG', depth_scale=1000),
    dict(type='PackSegInputs', meta_keys=meta_keys),
]
# One window covering the padded 480x640 image (size divisor 14), plus its flip.
depth_test_cfg = dict(mode='slide_flip', crop_size=(490, 644), stride=(490, 644))
train_dataloader = dict(
    batch_size=2,
    num_workers=2,
    persistent_workers=True,
    sampler=dict(type='InfiniteSampler', shuffle=True),
    dataset=dict(type=dataset_type, data_root=data_root,
                 data_prefix=dict(img_path='images/train', depth_map_path='annotations/train'),
                 pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=1,
    num_workers=2,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(type=dataset_type, data_root=data_root, test_mode=True,
                 data_prefix=dict(img_path='images/test', depth_map_path='annotations/test'),
                 pipeline=test_pipeline))
test_dataloader = val_dataloader
val_evaluator = dict(type='DepthErrorMetric', crop='nyu_eigen', **depth_range)
test_evaluator = val_evaluator
