# DINOv2 linear probe ("lin.") on ADE20K, ViT-S/14, as a probe grid: 26 heads on one frozen
# backbone pass per batch -- the 13 learning rates of DINOv2's linear classification grid
# (facebookresearch/dinov2 dinov2/eval/linear.py, get_args_parser's learning_rates), scaled as
# its scale_lr scales them (x images per GPU x GPUs / 256 = 2 x 8 / 256), times the two tap
# sets of DINOv2's segmentation probes: the last block ("lin.") and the last four (the inputs of
# "+ms"; its 640x640 crops and multi-scale test are that recipe's, not these heads'). Everything
# else is the single probe's (the base config), so each head is that probe with its lr and taps:
# the best one is written as a checkpoint of it (docs/probe_grids.md).
_base_ = './linear_vit-s14-dinov2_bnhead_8xb2-40k_ade20k-512x512.py'
classification_lrs = [1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 0.1]
probe_grid = dict(
    lr=[lr * 2 * 8 / 256 for lr in classification_lrs],
    taps=dict(last1=[11], last4=[8, 9, 10, 11]),
)
