"""Plain-PyTorch building blocks of SpecViT (no mm* imports: testable without mmcv). Every module
class of this package is exported here; helper functions are imported from their file."""

from .attention import Attention
from .block import Block
from .class_attention import ClassAttention, ClassAttentionBlock
from .layer_scale import LayerScale, NoLayerScale
from .mlp import Mlp
from .patch_embed import PatchEmbed, center_pad_to_multiple
from .plain import LayerNorm, Linear
from .pos_embed import resample_pos_embed
from .rope import RopePositionEmbedding
from .specialized import SpecializedLayerNorm, SpecializedLayerScale, SpecializedLinear
from .swiglu import SwiGLU
from .talking_heads import TalkingHeadAttention
from .token_graying import TokenGraying
from .token_layout import TokenLayout

__all__ = [
    'Attention',
    'Block',
    'ClassAttention',
    'ClassAttentionBlock',
    'LayerNorm',
    'LayerScale',
    'Linear',
    'Mlp',
    'NoLayerScale',
    'PatchEmbed',
    'RopePositionEmbedding',
    'SpecializedLayerNorm',
    'SpecializedLayerScale',
    'SpecializedLinear',
    'SwiGLU',
    'TalkingHeadAttention',
    'TokenGraying',
    'TokenLayout',
    'center_pad_to_multiple',
    'resample_pos_embed',
]
