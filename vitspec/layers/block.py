from functools import partial

import torch
from timm.layers import DropPath, LayerScale
from torch import nn

from .attention import Attention
from .mlp import Mlp
from .specialized import SpecializedLayerNorm, SpecializedLayerScale
from .swiglu import SwiGLU
from .talking_heads import TalkingHeadAttention

LayerNorm = partial(nn.LayerNorm, eps=1e-6)
FFN_TYPES = dict(mlp=Mlp, swiglu=SwiGLU)  # mlp: fc1, GELU, fc2; swiglu: DINOv2 ViT-g's


class Block(nn.Module):
    """Pre-norm transformer block; names follow timm (norm1, attn, ls1, norm2, mlp, ls2).

    Options: LayerScale (``layer_scale_init``), talking heads, windowed attention
    (``window_size``, ``window_padding``; ``forward(x, num_cls, hw)``), relative position bias
    (``rel_pos_bias``, ``rel_pos_size``: see `Attention`), per-block head count / head width / MLP
    width (layer-wise scaling), and CLS/patch specialization of the norms, the
    LayerScales and ``attn.qkv`` (``forward(x, num_cls)``: the first num_cls tokens are CLS).
    ``ffn_type``: 'mlp' or 'swiglu' (``mlp_hidden`` is then the gated width, fc1 twice it).
    """

    def __init__(self, dim: int, num_heads: int, mlp_hidden: int, qkv_bias: bool = True,
                 layer_scale_init: float = None, drop_path: float = 0.0, head_dim: int = None,
                 talking_heads: bool = False, spec_norm: bool = False,
                 spec_layer_scale: bool = False, spec_qkv: bool = False, lora_rank: int = None,
                 window_size: int = 0, ffn_type: str = 'mlp', rel_pos_bias: str = None,
                 rel_pos_size=None, window_padding: str = 'masked'):
        super().__init__()
        norm = SpecializedLayerNorm if spec_norm else LayerNorm
        attn = TalkingHeadAttention if talking_heads else Attention
        self.norm1 = norm(dim)
        self.attn = attn(dim, num_heads, qkv_bias=qkv_bias, head_dim=head_dim,
                         specialized_qkv=spec_qkv, lora_rank=lora_rank, window_size=window_size,
                         rel_pos_bias=rel_pos_bias, rel_pos_size=rel_pos_size,
                         window_padding=window_padding)
        self.ls1 = _layer_scale(dim, layer_scale_init, spec_layer_scale)
        self.drop_path1 = DropPath(drop_path) if drop_path > 0 else nn.Identity()
        self.norm2 = norm(dim)
        if ffn_type not in FFN_TYPES:
            raise ValueError(f'ffn_type must be one of {", ".join(FFN_TYPES)}, '
                             f'got {ffn_type!r}')
        self.mlp = FFN_TYPES[ffn_type](dim, mlp_hidden)  # mlp_hidden: the width fc2 reads
        self.ls2 = _layer_scale(dim, layer_scale_init, spec_layer_scale)
        self.drop_path2 = DropPath(drop_path) if drop_path > 0 else nn.Identity()

    def forward(self, x: torch.Tensor, num_cls: int = 1, hw=None) -> torch.Tensor:
        # the LayerScales ride on attn.proj and mlp.fc2 (layer_scaled_linear: no extra memory)
        h = self.attn(_tokenwise(self.norm1, x, num_cls), num_cls, hw, layer_scale=self.ls1)
        x = x + self.drop_path1(h)
        h = self.mlp(_tokenwise(self.norm2, x, num_cls), self.ls2, num_cls)
        return x + self.drop_path2(h)


def _layer_scale(dim, init, specialized):
    if not init:
        if specialized:
            raise ValueError('specializing LayerScale needs layer_scale_init')
        return nn.Identity()
    return SpecializedLayerScale(dim, init) if specialized else LayerScale(dim, init)


def _tokenwise(module, x, num_cls):
    if isinstance(module, SpecializedLayerNorm):
        return module(x, num_cls)
    return module(x)
