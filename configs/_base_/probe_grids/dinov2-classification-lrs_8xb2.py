# The 13 learning rates of DINOv2's linear classification grid (facebookresearch/dinov2
# dinov2/eval/linear.py, get_args_parser's learning_rates), scaled as its scale_lr scales them:
# x (images per GPU x GPUs) / 256, here 2 x 8 / 256 (the 8xb2 probe recipes). The optimizer stays
# the recipe's (AdamW for the dense probes; the classification eval uses SGD).
probe_grid = dict(
    lr=[
        lr * 2 * 8 / 256
        for lr in (1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 0.1)
    ]
)
