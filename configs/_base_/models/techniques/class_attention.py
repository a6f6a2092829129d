# CaiT class attention: 2 class-attention blocks read out the CLS token; the self-attention
# stage sees only the patches. Use with a backbone without a CLS position slot or registers.
technique = dict(num_class_attn_layers=2, pos_embed_cls=False, num_register_tokens=0)
