# OpenELM layer-wise scaling: heads (head dim 64) and MLP width grow linearly with depth.
# With these bounds blocks have ~63 % of the uniform model's parameters: compare at matched size.
technique = dict(
    layerwise_scaling=dict(alpha=(0.5, 1.0), beta=(0.5, 4.0), head_dim=64, ffn_divisor=64)
)
