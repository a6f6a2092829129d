"""Key layouts of the checkpoints users bring, mapped to SpecViT's (timm) parameter names.

Each converter takes the unwrapped tensor dict of one source layout and returns a dict in
SpecViT's names; ``convert_state_dict`` then drops the source-only keys. Nothing else in vitspec
knows about foreign keys.
"""

import re

import torch

from vitspec.errors import CheckpointError, ConfigError

# Source-only parts a dense backbone never uses, in SpecViT's (timm's) names: classifier heads
# (DeiT's distillation head and token), the classifier's pooled-feature norm ``fc_norm`` (MAE
# fine-tuned with global pooling has no final ``norm``: from_mae makes its fc_norm the norm
# first), DINOv2's and MAE's ``mask_token``, MAE's pre-training decoder and DINOv3's norm of
# the local crops' CLS token (``local_cls_norm``, pretraining only). Conversion drops them;
# loading drops those the model does not have, so an unconverted checkpoint loads too.
SOURCE_ONLY_KEYS = re.compile(
    r'^(head\.|head_dist\.|fc_norm\.|decoder_|decoder\.|mask_token$|dist_token$|local_cls_norm\.)'
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


def from_dinov3(sd: dict) -> dict:
    """facebookresearch/dinov3 (the released backbones), or timm's port of them (eva.py).

    DINOv3: ``storage_tokens`` are registers, ``rope_embed.periods`` the rotary periods; the
    qkv bias is multiplied by its ``bias_mask`` (k part 0), as DINOv3's forward does; the
    SwiGLU MLP's ``w1`` (gate), ``w2``, ``w3`` become the packed ``fc1`` and ``fc2``. timm's
    port: LayerScale as ``gamma_1`` / ``gamma_2``, ``q_bias`` / ``v_bias`` with no k bias,
    SwiGLU ``fc1_g`` / ``fc1_x``.
    """
    out = _renamed(
        sd,
        [
            (r'^storage_tokens$', 'reg_token'),
            (r'^rope_embed\.periods$', 'rope.periods'),
            (r'\.gamma_1$', '.ls1.gamma'),
            (r'\.gamma_2$', '.ls2.gamma'),
            (r'\.mlp\.w3\.', '.mlp.fc2.'),
        ],
    )
    if 'rope.periods' in out:  # DINOv3 trains it in bf16: the loaded model computes in fp32
        out['rope.periods'] = out['rope.periods'].float()
    for key in [k for k in out if k.endswith('.attn.qkv.bias_mask')]:
        mask = out.pop(key)
        if not torch.isfinite(mask).all():
            raise CheckpointError(f'{key} is not finite: the checkpoint was never initialized')
        bias = key[: -len('_mask')]
        out[bias] = out[bias] * mask.to(out[bias].dtype)
    for key in [k for k in out if k.endswith('.attn.q_bias')]:
        q, v = out.pop(key), out.pop(key.replace('.q_bias', '.v_bias'))
        out[key.replace('.q_bias', '.qkv.bias')] = torch.cat([q, torch.zeros_like(q), v])
    for gate_name, value_name in (('w1', 'w2'), ('fc1_g', 'fc1_x')):
        for key in [k for k in out if f'.mlp.{gate_name}.' in k]:
            value_key = key.replace(f'.mlp.{gate_name}.', f'.mlp.{value_name}.')
            packed = torch.cat([out.pop(key), out.pop(value_key)])
            out[key.replace(f'.mlp.{gate_name}.', '.mlp.fc1.')] = packed
    return out


FORMATS = dict(
    timm=from_timm,
    dinov2=from_dinov2,
    deit3=from_deit3,
    cait=from_cait,
    mae=from_mae,
    dinov3=from_dinov3,
)


def convert_state_dict(sd: dict, fmt: str) -> dict:
    if fmt not in FORMATS:
        raise ConfigError(f'unknown checkpoint format {fmt!r}; choose from {", ".join(FORMATS)}')
    return {k: v for k, v in FORMATS[fmt](sd).items() if not SOURCE_ONLY_KEYS.match(k)}
