# "Always Skip Attention" (2505.01996) on the demo data: the demo FCN with the attention stage
# without its skip connection, and the plain demo config's seed, data order and schedule;
# compare with tools/compare_runs.py and tools/analyze_conditioning.py (docs/techniques.md).
_base_ = [
    './fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py',
    '../_base_/models/backbones/specvit-tiny-p8.py',
    '../_base_/models/techniques/no_attention_skip.py',
]
model = dict(backbone=dict(_base_.backbone, **_base_.technique))
