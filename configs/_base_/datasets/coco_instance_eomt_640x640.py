# COCO instances in EoMT's protocol (tue-mps/eomt datasets/coco_instance.py, the transforms and
# test resizing of coco_panoptic_eomt_640x640.py): the same pipelines on the instances files,
# 80 classes, mask AP by mmdet's CocoMetric (pycocotools, as the model zoo's numbers).
_base_ = ['./coco_panoptic_eomt_640x640.py']
dataset_type = 'CheckedCocoDataset'
load = dict(type='LoadAnnotations', with_bbox=True, with_mask=True)
train_pipeline = [
    *_base_.train_pipeline[:2],
    load,
    *_base_.train_pipeline[3:],
]
test_pipeline = [
    *_base_.test_pipeline[:4],
    load,
    dict(
        type='PackDetInputs',
        meta_keys=('img_id', 'img_path', 'ori_shape', 'img_shape', 'scale_factor'),
    ),
]
train_dataloader = dict(
    dataset=dict(
        _delete_=True,
        type=dataset_type,
        data_root=_base_.data_root,
        ann_file='annotations/instances_train2017.json',
        data_prefix=dict(img='train2017/'),
        filter_cfg=dict(filter_empty_gt=True),
        pipeline=train_pipeline,
    )
)
val_dataloader = dict(
    dataset=dict(
        _delete_=True,
        type=dataset_type,
        data_root=_base_.data_root,
        ann_file='annotations/instances_val2017.json',
        data_prefix=dict(img='val2017/'),
        test_mode=True,
        pipeline=test_pipeline,
    )
)
test_dataloader = val_dataloader
val_evaluator = dict(_delete_=True, type='DatasetCocoMetric', metric=['segm'])
test_evaluator = val_evaluator
