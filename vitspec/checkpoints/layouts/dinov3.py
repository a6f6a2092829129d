"""facebookresearch/dinov3's released backbones, or timm's port of them (eva.py), mapped to
SpecViT's names."""

import torch

from vitspec.errors import CheckpointError

from .rename import KEEP, rename_keys

RULES = [
    (r'^storage_tokens$', 'reg_token'),
    (r'^rope_embed\.periods$', 'rope.periods'),
    (r'\.gamma_1$', '.ls1.gamma'),
    (r'\.gamma_2$', '.ls2.gamma'),
    (r'\.mlp\.w3\.', '.mlp.fc2.'),
    KEEP,
]


def from_dinov3(sd: dict) -> dict:
    """DINOv3: ``storage_tokens`` are registers, ``rope_embed.periods`` the rotary periods; the
    qkv bias is multiplied by its ``bias_mask`` (k part 0), as DINOv3's forward does; the
    SwiGLU MLP's ``w1`` (gate), ``w2``, ``w3`` become the packed ``fc1`` and ``fc2``. timm's
    port: LayerScale as ``gamma_1`` / ``gamma_2``, ``q_bias`` / ``v_bias`` with no k bias,
    SwiGLU ``fc1_g`` / ``fc1_x``.
    """
    out = rename_keys(sd, RULES, 'DINOv3')
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
