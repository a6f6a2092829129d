# Pascal VOC 2012 (SBD augmented train set) with the transforms of DINOv3's linear segmentation
# probe (facebookresearch/dinov3 dinov3/eval/segmentation/transforms.py, as its ADE20K config
# uses them: see ade20k_dinov3_512x512.py): mmseg's VOC pipeline with PhotoMetricDistortion's hue
# shifted by U(-0.5, 0.5) of the circle (torchvision adjust_hue), mmseg's hue_delta=90 (of 180).
# DINOv3 publishes no VOC config: every VOC-specific value is mmseg's (see the ledger).
_base_ = ['./voc12aug_512x512.py']
train_pipeline = [
    dict(step, hue_delta=90) if step['type'] == 'PhotoMetricDistortion' else step
    for step in _base_.train_pipeline
]
train_dataloader = dict(
    dataset=dict(
        datasets=[
            dict(_base_.dataset_train, pipeline=train_pipeline),
            dict(_base_.dataset_aug, pipeline=train_pipeline),
        ]
    ),
)
