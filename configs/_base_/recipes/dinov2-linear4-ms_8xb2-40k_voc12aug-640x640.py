# DINOv2 linear probe "+ms", Pascal VOC 2012: arXiv 2304.07193 Table 10 (the last 4 layers,
# resolution 640, multi-scale test-time augmentation). The hosted
# dinov2_vit*14_voc2012_ms_config.py is read in part (see the dataset fragment); the optimizer
# and schedule (not found for +ms) are the linear config's.
# Test: the published protocol always tests multi-scale + flip, so test_with_tta = True makes
# tools/test.py use tta_pipeline and tta_model (mmseg's softmax average) without --tta;
# validation during training stays single-scale.
# Leaves set the backbone, its taps, final norm and frozen stages, and the head's in_channels.
_base_ = [
    '../models/linear_bnhead.py',
    '../datasets/voc12aug_dinov2-ms_640x640.py',
    '../schedules/schedule_linear_40k.py',
    '../runtime_probe.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    decode_head=dict(num_classes=_base_.num_classes),
    test_cfg=_base_.inference_cfg,
)
test_with_tta = True
