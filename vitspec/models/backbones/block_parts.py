"""Which parts each SpecViT block is built from: the backbone's options mapped to classes once,
at construction, so the blocks themselves never look at a flag."""

from functools import partial
from typing import Optional, Sequence, Tuple

from torch import nn

from vitspec.errors import ConfigError
from vitspec.layers import Attention, Block, LayerNorm, LayerScale, Linear, Mlp
from vitspec.layers.layer_scaling import layerwise_widths
from vitspec.layers.specialized import (
    SpecializedLayerNorm,
    SpecializedLayerScale,
    SpecializedLinear,
)
from vitspec.layers.swiglu import SwiGLU
from vitspec.layers.talking_heads import TalkingHeadAttention

from .options import Option, Options, block_set, integer, number, pair

# OpenELM's layer-wise scaling: alpha, beta the (first, last) multipliers of the attention and
# MLP widths
LAYERWISE_SCALING = Options(
    'layerwise_scaling',
    alpha=Option((0.5, 1.0), pair(number(0, low_open=True))),
    beta=Option((0.5, 4.0), pair(number(0, low_open=True))),
    head_dim=Option(64, integer(1)),
    ffn_divisor=Option(64, integer(1)),
)
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
    low-rank with ``lora_rank``). ``norm_eps``: of both LayerNorms.
    """
    if ffn_type not in FFN_TYPES:
        raise ConfigError(f'ffn_type must be one of {", ".join(FFN_TYPES)}, got {ffn_type!r}')
    if spec_layer_scale and not layer_scale_init:
        raise ConfigError(
            'specialize.layer_scale=True needs a backbone with LayerScale (layer_scale_init); '
            'this one has none, so there is nothing to specialize: set '
            'specialize.layer_scale=False (or None)'
        )
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


def build_blocks(
    embed_dims: int,
    num_layers: int,
    num_heads: int,
    mlp_hidden: int,
    patch_grid: Tuple[int, int],
    *,
    layerwise_scaling: Optional[dict] = None,
    spec: Optional[dict] = None,
    window_size: int = 0,
    global_attn_indexes: Sequence[int] = (),
    drop_path_rate: float = 0.0,
    layer_scale_init: Optional[float] = None,
    rel_pos_bias: Optional[str] = None,
    skip: Optional[dict] = None,
    **common,
) -> nn.ModuleList:
    """SpecViT's self-attention blocks. ``layerwise_scaling``: the merged OpenELM options
    (per-block heads and MLP widths; None: none); ``spec``: the merged ``specialize`` options
    (None: none); blocks not in ``global_attn_indexes`` attend within windows when
    ``window_size``; relative position biases are made for the window or, in global blocks,
    ``patch_grid``; drop-path rates grow linearly to ``drop_path_rate``; ``skip``: the merged
    ``skip`` options (None: every skip connection). ``common``: the `block_parts` options every
    block shares."""
    head_dim = None
    widths = [(num_heads, mlp_hidden)] * num_layers
    ls = layerwise_scaling
    if ls:
        head_dim = ls['head_dim']
        widths = layerwise_widths(
            num_layers, embed_dims, head_dim, ls['alpha'], ls['beta'], ffn_divisor=ls['ffn_divisor']
        )
    spec = spec or dict(blocks=None, qkv_blocks=None, lora_rank=None, layer_scale=False)
    spec_blocks = block_set(spec['blocks'], num_layers, 'specialize.blocks')
    qkv_blocks = block_set(spec['qkv_blocks'], num_layers, 'specialize.qkv_blocks')
    global_blocks = block_set(list(global_attn_indexes), num_layers, 'global_attn_indexes')
    skip = skip or dict(attn=True, mlp=True, blocks=None)
    skip_blocks = block_set(skip['blocks'], num_layers, 'skip.blocks')
    blocks = nn.ModuleList()
    for i, (heads, hidden) in enumerate(widths):
        window = 0 if i in global_blocks else window_size
        rel_pos_size = ((window, window) if window else patch_grid) if rel_pos_bias else None
        specialized = i in spec_blocks
        parts = block_parts(
            heads,
            hidden,
            head_dim=head_dim,
            window_size=window,
            rel_pos_bias=rel_pos_bias,
            rel_pos_size=rel_pos_size,
            layer_scale_init=layer_scale_init,
            spec_norm=bool(specialized and spec['norm']),
            spec_layer_scale=specialized and _specializes_layer_scale(spec, layer_scale_init),
            spec_qkv=i in qkv_blocks,
            lora_rank=spec['lora_rank'],
            **common,
        )
        drop_path = drop_path_rate * i / max(num_layers - 1, 1)
        without = i in skip_blocks
        blocks.append(
            Block(
                embed_dims,
                drop_path=drop_path,
                skip_attn=skip['attn'] or not without,
                skip_mlp=skip['mlp'] or not without,
                **parts,
            )
        )
    return blocks


def _specializes_layer_scale(spec: dict, layer_scale_init: Optional[float]) -> bool:
    """``specialize.layer_scale``: None follows the backbone (specialize its LayerScales if it has
    any); True demands them (`block_parts` refuses a backbone without)."""
    if spec['layer_scale'] is None:
        return bool(layer_scale_init)
    return bool(spec['layer_scale'])
