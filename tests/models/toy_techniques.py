"""Every SpecViT technique at toy size, built away from its init: the models that the autocast
tests run."""

import torch

from vitspec.models import SpecViT

TOY = dict(img_size=32, patch_size=8, embed_dims=32, num_layers=3, num_heads=2, out_indices=(0, 2))
TECHNIQUES = {
    'plain': dict(),
    'layer_scale_1e-5': dict(layer_scale_init=1e-5),
    'layer_scale_1e-6': dict(layer_scale_init=1e-6),
    'specialized': dict(layer_scale_init=1e-5, specialize=dict(qkv_blocks='all')),
    'specialized_lora': dict(specialize=dict(lora_rank=4)),
    'layerwise_scaling': dict(
        layerwise_scaling=dict(alpha=(0.5, 1.0), beta=(0.5, 4.0), head_dim=16, ffn_divisor=16)
    ),
    'token_graying_dct': dict(token_graying=dict(mode='dct', eps=0.7)),
    'token_graying_svd': dict(token_graying=dict(mode='svd', eps=0.7)),
    'registers': dict(num_register_tokens=2, specialize=dict(registers='cls')),
    'windowed_attention': dict(
        window_size=2, global_attn_indexes=(1,), rel_pos_bias='decomposed', layer_scale_init=1e-5
    ),
    'class_attention': dict(num_class_attn_layers=2, pos_embed_cls=False, layer_scale_init=1e-5),
    'talking_heads': dict(
        talking_heads=True, num_class_attn_layers=1, pos_embed_cls=False, layer_scale_init=1e-5
    ),
    'rope': dict(rope=True, with_pos_embed=False, pos_embed_cls=False, num_register_tokens=2),
    'rel_pos_table': dict(rel_pos_bias='table', img_size=(32, 40), layer_scale_init=1e-5),
    'specialized_lora_layer_scale': dict(layer_scale_init=1e-5, specialize=dict(lora_rank=4)),
    'specialized_no_layer_scale': dict(specialize=dict(qkv_blocks=(0,))),
    'no_attention_skip': dict(skip=dict(attn=False), layer_scale_init=1e-5),
    'no_mlp_skip_specialized': dict(
        skip=dict(mlp=False, blocks=(0, 1)), specialize=dict(), layer_scale_init=1e-2
    ),
}


def build(technique):
    torch.manual_seed(0)
    model = SpecViT(**{**TOY, **TECHNIQUES[technique]})
    model.init_weights()
    with torch.no_grad():  # away from init: zero LoRA factors and rel-pos tables would hide errors
        for p in model.parameters():
            if not p.abs().any():
                p.normal_(std=0.02)
    return model.train()
