# EoMT for panoptic and instance segmentation on COCO (EoMTPanoptic, an mmdet detector; Kerssies et
# al., CVPR 2025; tue-mps/eomt): defaults of models/eomt.py (num_blocks 4) and of
# training/mask_classification_panoptic.py / mask_classification_instance.py (loss coefficients,
# 12544 points, importance sampling; post-processing mask_thresh 0.8 -> object_mask_thr,
# overlap_thresh 0.8 -> iou_thr, eval_top_k_instances 100 -> max_per_image). Recipes add backbone,
# data_preprocessor, classes, queries and which results to predict.
model = dict(
    type='EoMTPanoptic',
    num_things_classes=80,
    num_stuff_classes=53,
    num_queries=200,
    num_blocks=4,
    query_specialize=None,
    loss=dict(
        num_points=12544,
        oversample_ratio=3.0,
        importance_sample_ratio=0.75,
        mask_coefficient=5.0,
        dice_coefficient=5.0,
        class_coefficient=2.0,
        no_object_coefficient=0.1,
    ),
    test_cfg=dict(
        panoptic_on=True,
        instance_on=True,
        object_mask_thr=0.8,
        iou_thr=0.8,
        filter_low_score=True,
        max_per_image=100,
    ),
)
