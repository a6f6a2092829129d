# DINOv2 linear probe ("lin.") on ADE20K, ViT-B/14, as a probe grid: 26 heads on one frozen
# backbone pass per batch -- the 13 learning rates of DINOv2's linear classification grid
# (_base_/probe_grids/) times the two tap sets of DINOv2's segmentation probes: the last block
# ("lin.") and the last four (the inputs of "+ms"; its 640x640 crops and multi-scale test are
# that recipe's, not these heads'). Everything else is the single probe's (the first base), so
# each head is that probe with its lr and taps; the best one is written as a checkpoint of it
# (docs/probe_grids.md).
_base_ = [
    './linear_vit-b14-dinov2_bnhead_8xb2-40k_ade20k-512x512.py',
    '../_base_/probe_grids/dinov2-classification-lrs_8xb2.py',
]
probe_grid = dict(taps=dict(last1=[11], last4=[8, 9, 10, 11]))
