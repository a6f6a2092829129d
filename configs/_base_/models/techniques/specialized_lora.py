# Layer specialization with low-rank CLS qkv weights (W_cls = W + B A, rank 16): under 1 % extra.
# Only the rank differs from SpecViT's specialization defaults (see specialized.py).
technique = dict(specialize=dict(lora_rank=16))
