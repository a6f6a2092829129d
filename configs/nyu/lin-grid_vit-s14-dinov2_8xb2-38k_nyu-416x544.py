# DINOv2 depth probes lin. 1 and lin. 4 on NYU-Depth v2, ViT-S/14, as a probe grid: 26 heads on
# one frozen backbone pass per batch -- the 13 learning rates of DINOv2's linear classification
# grid (_base_/probe_grids/), times the taps of DINOv2's two depth probes: the last block
# (lin. 1) and blocks 2, 5, 8, 11 (lin. 4; both with the CLS token, as the hosted
# dinov2_vits14_nyu_linear{,4}_config.py). Everything else is the
# lin. 1 probe's (the base config), so each head is that probe with its lr and taps; the best one,
# by the recipe's save_best (abs_rel, lower is better), is written as a checkpoint of it.
_base_ = [
    './lin1_vit-s14-dinov2_8xb2-38k_nyu-416x544.py',
    '../_base_/probe_grids/dinov2-classification-lrs_8xb2.py',
]
probe_grid = dict(taps=dict(lin1=[11], lin4=[2, 5, 8, 11]))
