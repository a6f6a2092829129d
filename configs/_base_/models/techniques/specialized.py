# CLS/patch layer specialization (2602.08626) at SpecViT's defaults (SPECIALIZE in
# vitspec/models/backbones/options.py, the paper's setting): norms in every block (and
# LayerScales, where the backbone has them), qkv in the first third; registers with the patches.
# About +8 % parameters, no extra FLOPs.
technique = dict(specialize=True)
