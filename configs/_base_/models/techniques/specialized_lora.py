# Layer specialization with low-rank CLS qkv weights (W_cls = W + B A, rank 16): under 1 % extra.
technique = dict(
    specialize=dict(
        norm=True,
        layer_scale=None,
        blocks='all',
        qkv_blocks='first_third',
        lora_rank=16,
        registers='patch',
    )
)
