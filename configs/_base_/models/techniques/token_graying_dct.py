# Token Graying, DCT variant (Always Skip Attention, 2505.01996), applied at train and test.
technique = dict(token_graying=dict(mode='dct', eps=0.7))
