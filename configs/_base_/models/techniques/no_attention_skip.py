# The attention stage without its skip connection, in every block: the ablation of "Always Skip
# Attention" (2505.01996, Figure 1 and its CIFAR-10 ViT-Tiny study); train from scratch.
technique = dict(skip=dict(attn=False))
