# EoMT, the encoder-only mask transformer (Kerssies et al., CVPR 2025, arXiv 2503.19108;
# tue-mps/eomt): queries join the last num_blocks blocks of the backbone; Mask2Former's matching
# and losses train every block's prediction. Defaults as tue-mps/eomt models/eomt.py
# (num_blocks=4) and training/mask_classification_semantic.py (loss coefficients, 12544 points,
# importance sampling, ignore_idx 255). Recipes add backbone, data_preprocessor, num_classes,
# num_queries and test_cfg.
model = dict(
    type='EoMT',
    num_classes=None,
    num_queries=100,
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
    ignore_index=255,
    train_cfg=dict(),
    test_cfg=dict(mode='whole'),
)
