# KITTI, Eigen split, BTS layout: raw/<date>/<drive>/image_02/data/*.png, depth PNGs
# (uint16 = metres * 256, 0 = no return) under data_depth_annotated/, split files
# eigen_{train,test}_files.txt with lines "<image> <depth> <focal>".
# DINOv2 protocol: KB crop (352x1216), train crops 352x704, rotation +-1 deg (BTS), flip, colour
# jitter; test on the KB-cropped image and its flip; metrics on 1e-3 < d < 80 m in the Garg crop
# (placed on the uncropped image, as BTS does; DINOv2's choice of crop is unverified).
dataset_type = 'KITTIDepthDataset'
data_root = 'data/kitti'
crop_size = (352, 704)
depth_range = dict(min_depth=1e-3, max_depth=80.0)
meta_keys = ('img_path', 'depth_map_path', 'ori_shape', 'img_shape', 'pad_shape',
             'scale_factor', 'flip', 'flip_direction', 'crop_offset')
data_prefix = dict(img_path='raw', depth_map_path='data_depth_annotated')
train_pipeline = [
    dict(type='CheckedLoadImageFromFile'),
    dict(type='LoadDepthPNG', depth_scale=256),
    dict(type='KBCrop', height=352, width=1216),
    dict(type='RandomRotate', prob=0.5, degree=1.0, pad_val=0, seg_pad_val=0),
    dict(type='RandomCrop', crop_size=crop_size),
    dict(type='RandomFlip', prob=0.5),
    dict(type='PhotoMetricDistortion', brightness_delta=16, contrast_range=(0.9, 1.1),
         saturation_range=(0.9, 1.1), hue_delta=5),
    dict(type='PackSegInputs', meta_keys=meta_keys),
]
test_pipeline = [
    dict(type='CheckedLoadImageFromFile'),
    dict(type='LoadDepthPNG', depth_scale=256),
    dict(type='KBCrop', height=352, width=1216),
    dict(type='PackSegInputs', meta_keys=meta_keys),
]
# One window covering the padded 352x1216 image (size divisor 14), plus its flip.
depth_test_cfg = dict(mode='slide_flip', crop_size=(364, 1218), stride=(364, 1218))
train_dataloader = dict(
    batch_size=2,
    num_workers=2,
    persistent_workers=True,
    sampler=dict(type='InfiniteSampler', shuffle=True),
    dataset=dict(type=dataset_type, data_root=data_root, ann_file='eigen_train_files.txt',
                 data_prefix=data_prefix, pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=1,
    num_workers=2,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(type=dataset_type, data_root=data_root, ann_file='eigen_test_files.txt',
                 data_prefix=data_prefix, test_mode=True, pipeline=test_pipeline))
test_dataloader = val_dataloader
val_evaluator = dict(type='DepthErrorMetric', crop='garg', **depth_range)
test_evaluator = val_evaluator
