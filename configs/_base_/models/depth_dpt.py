# DINOv2's DPT depth head (facebookresearch/dinov2 dinov2/eval/depth/models/decode_heads/
# dpt_head.py; hosted dinov2_vitl14_nyu_dpt config): 4 layers, readout 'project', 256 channels,
# no norm, depth regressed (ReLU + min depth). Leaves add the backbone, the head's embed_dims
# (post_process_channels default to [D/8, D/4, D/2, D]), depth_range and test_cfg.
_base_ = ['./depth_estimator.py']
model = dict(
    decode_head=dict(
        type='DPTDepthHead', channels=256, readout_type='project', classify=False, regression='relu'
    )
)
