# The procedural demo data in NYU's layout (tools/make_demo_data.py): 120x160 images,
# 16-bit millimetre depth PNGs up to 10 m. NYU's pipelines, scaled to the small images.
dataset_type = 'NYUDataset'
data_root = 'data/demo/nyu'
crop_size = (112, 144)
depth_range = dict(min_depth=1e-3, max_depth=10.0)
meta_keys = ('img_path', 'depth_map_path', 'ori_shape', 'img_shape', 'pad_shape',
             'scale_factor', 'flip', 'flip_direction', 'crop_offset')
train_pipeline = [
    dict(type='CheckedLoadImageFromFile'),
    dict(type='LoadDepthPNG', depth_scale=1000),
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
train_dataloader = dict(
    batch_size=4,
    num_workers=0,
    sampler=dict(type='InfiniteSampler', shuffle=True),
    dataset=dict(type=dataset_type, data_root=data_root,
                 data_prefix=dict(img_path='images/train', depth_map_path='annotations/train'),
                 pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=1,
    num_workers=0,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(type=dataset_type, data_root=data_root, test_mode=True,
                 data_prefix=dict(img_path='images/test', depth_map_path='annotations/test'),
                 pipeline=test_pipeline))
test_dataloader = val_dataloader
val_evaluator = dict(type='DepthErrorMetric', crop='nyu_eigen', **depth_range)
test_evaluator = val_evaluator
