"""Which parts each SpecViT block is built from: the backbone's resolved options
(`options.SpecViTOptions`, checked there) mapped to classes once, at construction, so the blocks
themselves never look at a flag."""

from functools import partial
from typing import Optional, Tuple

from torch import nn

from vitspec.layers import Attention, Block, LayerNorm, LayerScale, Linear, Mlp
from vitspec.layers.class_attention import ClassAttentionBlock
from vitspec.layers.layer_scaling import layerwise_widths
from vitspec.layers.specialized import (
    SpecializedLayerNorm,
    SpecializedLayerScale,
    SpecializedLinear,
)
from vitspec.layers.swiglu import SwiGLU
from vitspec.layers.talking_heads import TalkingHeadAttention

from .option_kinds import block_set
from .options import SpecViTOptions

FFN_TYPES = dict(mlp=Mlp, swiglu=SwiGLU)  # mlp: fc1, GELU, fc2; swiglu: DINOv2 ViT-g's


def block_parts(
    num_heads: int,
    mlp_hidden: int,
    *,
    head_dim: Optional[int] = None,
    qkv_bias: bool = True,
    talking_heads: bool = False,
    ffn_type: str = 'mlp',
    window_size: int = 0,
    rel_pos_bias: Optional[str] = None,
    rel_pos_size: Optional[Tuple[int, int]] = None,
    window_padding: str = 'masked',
    layer_scale_init: Optional[float] = None,
    norm_eps: float = 1e-6,
    spec_norm: bool = False,
    spec_layer_scale: bool = False,
    spec_qkv: bool = False,
    lora_rank: Optional[int] = None,
) -> dict:
    """The ``attn_layer``, ``mlp_layer``, ``norm_layer`` and ``ls_layer`` of one `Block`.

    ``mlp_hidden``: the width fc2 reads (SwiGLU: the gated width, fc1 twice it). ``spec_*``:
    separate CLS parameters for the norms, the LayerScales and ``attn.qkv`` (full copies, or
    low-rank with ``lora_rank``). ``norm_eps``: of both LayerNorms. The options are checked
    already (`options.resolve`).
    """
    qkv_layer = partial(SpecializedLinear, lora_rank=lora_rank) if spec_qkv else Linear
    attn = TalkingHeadAttention if talking_heads else Attention
    ls_layer = None
    if layer_scale_init:
        ls_layer = partial(
            SpecializedLayerScale if spec_layer_scale else LayerScale, init_value=layer_scale_init
        )
    return dict(
        attn_layer=partial(
            attn,
            num_heads=num_heads,
            qkv_bias=qkv_bias,
            head_dim=head_dim,
            qkv_layer=qkv_layer,
            window_size=window_size,
            rel_pos_bias=rel_pos_bias,
            rel_pos_size=rel_pos_size,
            window_padding=window_padding,
        ),
        mlp_layer=partial(FFN_TYPES[ffn_type], hidden=mlp_hidden),
        norm_layer=partial(SpecializedLayerNorm if spec_norm else LayerNorm, eps=norm_eps),
        ls_layer=ls_layer,
    )


def build_blocks(o: SpecViTOptions) -> nn.ModuleList:
    """SpecViT's self-attention blocks from its resolved options: per-block heads and MLP widths
    by ``layerwise_scaling``; CLS parameters by ``specialize``; blocks not in
    ``global_attn_indexes`` attend within windows when ``window_size``; relative position biases
    are made for the window or, in global blocks, ``patch_grid``; drop-path rates grow linearly
    to ``drop_path_rate``; skip connections removed by ``skip``."""
    n = o.num_layers
    head_dim = None
    widths = [(o.num_heads, o.mlp_hidden)] * n
    ls = o.layerwise_scaling
    if ls:
        head_dim = ls['head_dim']
        widths = layerwise_widths(
            n, o.embed_dims, head_dim, ls['alpha'], ls['beta'], ffn_divisor=ls['ffn_divisor']
        )
    spec = o.specialize or dict(blocks=None, qkv_blocks=None, lora_rank=None, layer_scale=False)
    spec_blocks = block_set(spec['blocks'], n, 'specialize.blocks')
    qkv_blocks = block_set(spec['qkv_blocks'], n, 'specialize.qkv_blocks')
    global_blocks = block_set(list(o.global_attn_indexes), n, 'global_attn_indexes')
    skip = o.skip or dict(attn=True, mlp=True, blocks=None)
    skip_blocks = block_set(skip['blocks'], n, 'skip.blocks')
    blocks = nn.ModuleList()
    for i, (heads, hidden) in enumerate(widths):
        window = 0 if i in global_blocks else o.window_size
        rel_pos_size = ((window, window) if window else o.patch_grid) if o.rel_pos_bias else None
        specialized = i in spec_blocks
        parts = block_parts(
            heads,
            hidden,
            head_dim=head_dim,
            qkv_bias=o.qkv_bias,
            talking_heads=o.talking_heads,
            ffn_type=o.ffn_type,
            window_size=window,
            rel_pos_bias=o.rel_pos_bias,
            rel_pos_size=rel_pos_size,
            window_padding=o.window_padding,
            layer_scale_init=o.layer_scale_init,
            norm_eps=o.norm_eps,
            spec_norm=bool(specialized and spec['norm']),
            spec_layer_scale=specialized and _specializes_layer_scale(spec, o.layer_scale_init),
            spec_qkv=i in qkv_blocks,
            lora_rank=spec['lora_rank'],
        )
        without = i in skip_blocks
        blocks.append(
            Block(
                o.embed_dims,
                drop_path=o.drop_path_rate * i / max(n - 1, 1),
                skip_attn=skip['attn'] or not without,
                skip_mlp=skip['mlp'] or not without,
                **parts,
            )
        )
    return blocks


def build_class_attention_blocks(o: SpecViTOptions) -> Optional[nn.ModuleList]:
    """CaiT's class-attention blocks (``num_class_attn_layers``; None without)."""
    if not o.class_attn:
        return None
    return nn.ModuleList(
        ClassAttentionBlock(o.embed_dims, o.num_heads, o.mlp_ratio, o.qkv_bias, o.layer_scale_init)
        for _ in range(o.num_class_attn_layers)
    )


def _specializes_layer_scale(spec: dict, layer_scale_init: Optional[float]) -> bool:
    """``specialize.layer_scale``: None follows the backbone (specialize its LayerScales if it has
    any); True demands them (`options.resolve` refuses a backbone without)."""
    if spec['layer_scale'] is None:
        return bool(layer_scale_init)
    return bool(spec['layer_scale'])
