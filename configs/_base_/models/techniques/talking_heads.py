# Talking-heads attention in every self-attention block (materialises the attention map).
technique = dict(talking_heads=True)
