"""Plain-PyTorch building blocks of SpecViT (no mm* imports: testable without mmcv)."""

from .attention import Attention
from .block import Block
from .layer_scale import LayerScale, NoLayerScale
from .mlp import Mlp
from .patch_embed import PatchEmbed, center_pad_to_multiple
from .plain import LayerNorm, Linear
from .pos_embed import resample_pos_embed
from .token_layout import TokenLayout

__all__ = [
    'Attention',
    'Block',
    'LayerNorm',
    'LayerScale',
    'Linear',
    'Mlp',
    'NoLayerScale',
    'PatchEmbed',
    'TokenLayout',
    'center_pad_to_multiple',
    'resample_pos_embed',
]
