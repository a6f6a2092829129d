"""Which parameters get no weight decay, decided by what they are, not by their names."""

from typing import Set

from timm.layers import LayerScale
from torch import nn
from torch.nn.modules.batchnorm import _BatchNorm
from torch.nn.modules.instancenorm import _InstanceNorm

from vitspec.layers.specialized import SpecializedLayerNorm, SpecializedLayerScale
from vitspec.layers.token_layout import ROW_GROUPS

NORMS = (nn.LayerNorm, nn.GroupNorm, _BatchNorm, _InstanceNorm, SpecializedLayerNorm)
SCALES = (LayerScale, SpecializedLayerScale)
BIASES = ('bias', *(f'{group}_bias' for group in ROW_GROUPS))  # shared, and a row group's own
# Tokens and embeddings a ViT holds as its own parameters (timm / DINOv2 / mmseg attributes).
EMBEDDINGS = ('pos_embed', 'cls_token', 'reg_token', 'register_tokens', 'mask_token', 'dist_token')


def no_decay_parameters(model: nn.Module) -> Set[int]:
    """ids of the parameters exempt from weight decay: every parameter of a norm or LayerScale
    module (shared and row-group copies), the bias of any module, and the embedding/token parameters
    a module owns directly. A module may add its own with ``no_weight_decay()`` (timm's
    contract: names relative to that module)."""
    exempt = set()
    for module in model.modules():
        if isinstance(module, NORMS + SCALES):
            exempt.update(id(p) for p in module.parameters(recurse=False))
        for attr in BIASES + EMBEDDINGS:
            param = module._parameters.get(attr)
            if param is not None:
                exempt.add(id(param))
        if callable(getattr(module, 'no_weight_decay', None)):
            own = dict(module.named_parameters())
            exempt.update(id(own[n]) for n in module.no_weight_decay() if n in own)
    return exempt
