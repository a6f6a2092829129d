# LayerScale (CaiT): per-channel scale on both residual branches, initialised to eps.
technique = dict(layer_scale_init=1e-5)
