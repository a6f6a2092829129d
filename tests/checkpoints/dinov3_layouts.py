"""DINOv3 test weights: timm's port with perturbed weights, and the same weights in
facebookresearch/dinov3's own release layout."""

import timm
import torch

from tests.utils import perturbed


def timm_dinov3(name, **kwargs):
    return perturbed(timm.create_model(name, pretrained=False, num_classes=0, **kwargs))


def release_layout(ref):
    """timm's DINOv3 state dict in facebookresearch/dinov3's own names (dinov3/models/
    vision_transformer.py, dinov3/layers): storage_tokens, rope_embed.periods, mask_token, a
    qkv bias with its k-masking bias_mask (the k part here is noise the mask must remove), the
    SwiGLU MLP as w1 (gate), w2, w3."""
    sd = ref.state_dict()
    swiglu = hasattr(ref.blocks[0].mlp, 'fc1_g')
    out = {}
    for key, value in sd.items():
        if key.endswith('.attn.v_bias'):
            continue
        if key.endswith('.attn.q_bias'):
            prefix, n = key[: -len('q_bias')], value.numel()
            out[prefix + 'qkv.bias'] = torch.cat(
                [value, torch.randn_like(value), sd[prefix + 'v_bias']]
            )
            out[prefix + 'qkv.bias_mask'] = torch.cat(
                [torch.ones(n), torch.zeros(n), torch.ones(n)]
            )
            continue
        key = key.replace('reg_token', 'storage_tokens')
        key = key.replace('gamma_1', 'ls1.gamma').replace('gamma_2', 'ls2.gamma')
        if swiglu:
            key = key.replace('.mlp.fc1_g.', '.mlp.w1.').replace('.mlp.fc1_x.', '.mlp.w2.')
            key = key.replace('.mlp.fc2.', '.mlp.w3.')
        out[key] = value
    out['rope_embed.periods'] = ref.rope.periods.clone()
    out['mask_token'] = torch.zeros(1, ref.embed_dim)
    return out
