# DINOv3 linear probe, Cityscapes: DINOv3 (arXiv 2508.10104) Table 3. DINOv3 publishes no
# Cityscapes config: head, optimizer and schedule are those of its ADE20K linear config
# (dinov3/eval/segmentation/configs/config-ade20k-linear-training.yaml, see
# dinov3-linear_8xb2-40k_ade20k-512x512.py), the data those of cityscapes_dinov3_512x512.py.
# Its appendix D.1 says only: a linear layer on the patch outputs after the layer norm, a
# trained BN, AdamW with lr in {1e-4, 3e-4, 1e-3} and weight decay in {1e-4, 1e-3} swept.
# Leaves set the backbone, its taps, final norm and frozen stages, and the head's in_channels.
_base_ = [
    '../models/linear_bnhead.py',
    '../datasets/cityscapes_dinov3_512x512.py',
    '../schedules/schedule_dinov3_linear_40k.py',
    '../runtime_probe.py',
]
model = dict(
    data_preprocessor=_base_.data_preprocessor,
    decode_head=dict(num_classes=_base_.num_classes, dropout_ratio=0.1),
    test_cfg=_base_.inference_cfg,
)
