# Token Graying, SVD variant: the reference form; about 6x slower to train than DCT.
technique = dict(token_graying=dict(mode='svd', eps=0.7))
