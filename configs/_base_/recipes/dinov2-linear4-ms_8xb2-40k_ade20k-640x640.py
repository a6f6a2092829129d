# DINOv2 linear probe "+ms", ADE20K: arXiv 2304.07193 Table 10. The paper's text, as
# quoted in facebookresearch/dinov2 issue #394: "+ms: a boosted version of the linear setup.
# We concatenate the patch tokens of the 4 last layers, use a larger image resolution of 640,
# and use multiscale test-time augmentations". The mIoU is DINOv2's MODEL_CARD.md (ADE20k
# segm., multiscale). The hosted dinov2_vit*14_ade20k_ms_config.py could not be read verbatim: crop,
# train scale and test scales come from derivative copies (see the dataset fragment); the
# optimizer and schedule (not found for +ms) are the linear config's.
# Test: the published protocol always tests multi-scale + flip, so test_with_tta = True makes
# tools/test.py use tta_pipeline and tta_model (mmseg's softmax average) without --tta;
# validation during training stays single-scale.
# Leaves set the backbone, its taps, final norm and frozen stages, and the head's in_channels.
_base_ = [
    '../models/linear_bnhead.py',
    '../datasets/ade20k_dinov2-ms_640x640.py',
    '../schedules/schedule_linear_40k.py',
    '../runtime_probe.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    decode_head=dict(num_classes=_base_.num_classes),
    test_cfg=_base_.inference_cfg,
)
test_with_tta = True
