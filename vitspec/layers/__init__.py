"""Plain-PyTorch building blocks of SpecViT (no mm* imports: testable without mmcv)."""
from .attention import Attention
from .block import Block
from .patch_embed import PatchEmbed, center_pad_to_multiple
from .pos_embed import resample_pos_embed

__all__ = ['Attention', 'Block', 'PatchEmbed', 'center_pad_to_multiple', 'resample_pos_embed']
