"""The benchmarked backbones: timm's and mmseg's ViT and SpecViT variants, by name and size;
the DINOv3 pair (`dinov3`) as SpecViT's fragment and timm's port build it. `timm-ls` is timm's
ViT with the LayerScale of the SpecViT variants, the like-for-like baseline of those."""

import timm
import torch

from vitspec.models import SpecViT

from .dinov3 import specvit_dinov3, timm_dinov3

SIZES = dict(  # name: (embed_dims, layers, heads, patch)
    t8=(64, 4, 2, 8), s16=(384, 12, 6, 16), b16=(768, 12, 12, 16), l16=(1024, 24, 16, 16)
)
LAYER_SCALE_INIT = 1e-5
TIMM_VARIANTS = {'timm': {}, 'timm-ls': dict(init_values=LAYER_SCALE_INIT)}
SPECVIT_VARIANTS = {
    'specvit': {},
    'specvit-spec': dict(layer_scale_init=LAYER_SCALE_INIT, specialize=dict()),
    'specvit-ls': dict(layer_scale_init=LAYER_SCALE_INIT),
    'specvit-lora': dict(layer_scale_init=LAYER_SCALE_INIT, specialize=dict(lora_rank=16)),
    'specvit-tg-dct': dict(token_graying=dict(mode='dct', eps=0.7)),
    'specvit-tg-svd': dict(token_graying=dict(mode='svd', eps=0.7)),
    'specvit-cp': dict(with_cp=True),
}
DINOV3_MODELS = {'timm-dinov3': timm_dinov3, 'specvit-dinov3': specvit_dinov3}
MODELS = (*TIMM_VARIANTS, 'mmseg', *SPECVIT_VARIANTS, *DINOV3_MODELS)
# a model name with this suffix runs through torch.compile (inductor); its compilation happens
# when the worker starts, timed apart (Case.compile_s) and before the warm-up
COMPILED = '+compile'


def base_name(name):
    """The model a (possibly compiled) benchmark name builds, and whether it is compiled."""
    compiled = name.endswith(COMPILED)
    return (name[: -len(COMPILED)] if compiled else name), compiled


def build(name, size):
    dims, layers, heads, patch = SIZES[size]
    if name in DINOV3_MODELS:
        return DINOV3_MODELS[name](dims, layers, heads, patch)
    if name in TIMM_VARIANTS:
        return timm.models.VisionTransformer(
            img_size=224,
            patch_size=patch,
            embed_dim=dims,
            depth=layers,
            num_heads=heads,
            num_classes=0,
            dynamic_img_size=True,
            global_pool='',
            **TIMM_VARIANTS[name],
        )
    if name == 'mmseg':
        # imported on demand: importing mmseg needs mmcv's compiled ops, the other models do not
        from mmseg.models.backbones import VisionTransformer

        return VisionTransformer(
            img_size=224,
            patch_size=patch,
            embed_dims=dims,
            num_layers=layers,
            num_heads=heads,
            out_indices=(layers - 1,),
            final_norm=True,
            interpolate_mode='bicubic',
        )
    model = SpecViT(
        img_size=224,
        patch_size=patch,
        embed_dims=dims,
        num_layers=layers,
        num_heads=heads,
        out_indices=(layers - 1,),
        **SPECVIT_VARIANTS[name],
    )
    return as_trained(model)


@torch.no_grad()
def as_trained(model):
    """LoRA's B away from its zero init: at B = 0 inference takes a shortcut (no CLS GEMM)
    that a trained model does not."""
    for name, param in model.named_parameters():
        if name.endswith('cls_lora_b'):
            param.normal_(std=0.02)
    return model
