# The MLP stage without its skip connection, in every block: the paper's contrast to removing
# the attention's (2505.01996: the MLP still trains, worse); train from scratch.
technique = dict(skip=dict(mlp=False))
