# CLS/patch layer specialization (2602.08626): norms in every block (and LayerScales, where the
# backbone has them), qkv in the first third; registers with the patches. About +8 % parameters,
# no extra FLOPs.
technique = dict(
    specialize=dict(
        norm=True,
        layer_scale=None,
        blocks='all',
        qkv_blocks='first_third',
        lora_rank=None,
        registers='patch',
    )
)
