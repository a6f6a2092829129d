# DPT decoder on 4 layers (readout 'project', 256 channels), depth regressed (ReLU + min depth),
# as DINOv2 evaluates it. The leaf config adds the backbone, the head's embed_dims and
# post_process_channels ([D/8, D/4, D/2, D] by default), depth_range and test_cfg.
_base_ = ['./depth_estimator.py']
model = dict(
    decode_head=dict(
        type='DPTDepthHead', channels=256, readout_type='project',
        classify=False, regression='relu'))
