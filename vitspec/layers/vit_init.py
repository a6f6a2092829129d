"""timm's ViT weight init (``init_weights_vit_timm``, timm/models/vision_transformer.py)."""

import torch
from timm.layers import trunc_normal_
from torch import nn


@torch.no_grad()
def init_vit_weights(model: nn.Module, std: float = 0.02) -> None:
    """Every nn.Linear below ``model``: weight truncated normal (``std``), bias 0; every other
    submodule with an ``init_weights(std)`` method (the specialized layers) initialises itself.
    Norms, LayerScales and the rest keep the init they were built with."""
    for module in model.modules():
        if module is model:
            continue
        if isinstance(module, nn.Linear):
            trunc_normal_(module.weight, std=std)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif callable(getattr(module, 'init_weights', None)):
            module.init_weights(std)
