"""Key layouts of the checkpoints users bring, mapped to SpecViT's (timm) parameter names.

Each converter takes the unwrapped tensor dict of one source layout and returns a dict in
SpecViT's names; ``convert_state_dict`` then drops the source-only keys. Nothing else in vitspec
knows about foreign keys.
"""

import re

# Source-only parts a dense backbone never uses, in SpecViT's (timm's) names: classifier heads
# (DeiT's distillation head and token), the classifier's pooled-feature norm ``fc_norm`` (MAE
# fine-tuned with global pooling has no final ``norm``: from_mae makes its fc_norm the norm
# first), DINOv2's and MAE's ``mask_token`` and MAE's pre-training decoder. Conversion drops
# them; loading drops those the model does not have, so an unconverted checkpoint loads too.
SOURCE_ONLY_KEYS = re.compile(
    r'^(head\.|head_dist\.|fc_norm\.|decoder_|decoder\.|mask_token$|dist_token$)'
)


def _renamed(sd: dict, rules) -> dict:
    out = {}
    for key, value in sd.items():
        for pattern, repl in rules:
            key = re.sub(pattern, repl, key)
        out[key] = value
    return out


def from_timm(sd: dict) -> dict:
    """timm's VisionTransformer (ViT, DeiT, DeiT-III, DINOv2, AugReg, ...): already our names."""
    return _renamed(sd, [])


def from_dinov2(sd: dict) -> dict:
    """facebookresearch/dinov2 (hub and training checkpoints, with or without registers).

    ViT-g's SwiGLU MLP stores ``mlp.w12`` (gate and value packed, gate first) and ``mlp.w3``:
    SpecViT's SwiGLU ``mlp.fc1`` / ``mlp.fc2``, the same tensors (as timm maps them)."""
    # block_chunks > 0 stores blocks as blocks.<chunk>.<index>; the index is global
    return _renamed(
        sd,
        [
            (r'^blocks\.\d+\.(\d+)\.', r'blocks.\1.'),
            (r'\.mlp\.w12\.', '.mlp.fc1.'),
            (r'\.mlp\.w3\.', '.mlp.fc2.'),
            (r'^register_tokens$', 'reg_token'),
        ],
    )


def from_deit3(sd: dict) -> dict:
    """facebookresearch/deit models_v2 (DeiT-III): LayerScale as gamma_1 / gamma_2."""
    return _renamed(sd, [(r'\.gamma_1$', '.ls1.gamma'), (r'\.gamma_2$', '.ls2.gamma')])


def from_cait(sd: dict) -> dict:
    """facebookresearch/deit cait_models (and timm's CaiT): the same gamma names, plus the
    class-attention blocks ``blocks_token_only`` and talking-heads ``attn.proj_l / proj_w``."""
    return from_deit3(sd)


def from_mae(sd: dict) -> dict:
    """facebookresearch/mae: timm names; pre-training adds the decoder, fine-tuning with global
    pooling replaces the final ``norm`` by ``fc_norm``, which then serves as the final norm."""
    out = _renamed(sd, [])
    if 'norm.weight' not in out and 'fc_norm.weight' in out:
        out['norm.weight'] = out.pop('fc_norm.weight')
        out['norm.bias'] = out.pop('fc_norm.bias')
    return out


FORMATS = dict(timm=from_timm, dinov2=from_dinov2, deit3=from_deit3, cait=from_cait, mae=from_mae)


def convert_state_dict(sd: dict, fmt: str) -> dict:
    if fmt not in FORMATS:
        raise ValueError(f'unknown checkpoint format {fmt!r}; choose from {", ".join(FORMATS)}')
    return {k: v for k, v in FORMATS[fmt](sd).items() if not SOURCE_ONLY_KEYS.match(k)}
