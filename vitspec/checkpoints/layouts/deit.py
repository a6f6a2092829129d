"""facebookresearch/deit's DeiT-III (models_v2) and CaiT (cait_models, also timm's CaiT),
mapped to SpecViT's names."""

from .rename import KEEP, rename_keys

LAYER_SCALE = [(r'\.gamma_1$', '.ls1.gamma'), (r'\.gamma_2$', '.ls2.gamma'), KEEP]


def from_deit3(sd: dict) -> dict:
    """DeiT-III: LayerScale as gamma_1 / gamma_2."""
    return rename_keys(sd, LAYER_SCALE, 'DeiT-III')


def from_cait(sd: dict) -> dict:
    """CaiT: the same gamma names, plus the class-attention blocks ``blocks_token_only`` and
    talking-heads ``attn.proj_l / proj_w``, which SpecViT names alike."""
    return rename_keys(sd, LAYER_SCALE, 'CaiT')
