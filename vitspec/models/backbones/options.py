"""SpecViT's options, in one place: the kind (type and range) of every constructor argument, the
keys, defaults and kinds of every option dict (``specialize``, ``rope``, ``skip``,
``token_graying``, ``layerwise_scaling``, and EoMT's ``query_specialize``), the combinations
that cannot work, and what the backbone derives from them. `resolve` checks and merges them once,
before any part is built, and returns what the constructor builds from (`SpecViTOptions`).

The option dicts' defaults are the paper's setting (2602.08626), their one source: configs state
only what differs.
"""

from types import SimpleNamespace

from vitspec.errors import ConfigError
from vitspec.layers.pos_embed import POS_EMBED_MODES
from vitspec.layers.rel_pos import REL_POS_MODES
from vitspec.layers.rope import NORMALIZE_COORDS
from vitspec.layers.swiglu import swiglu_hidden
from vitspec.layers.token_graying import TOKEN_GRAYING_MODES

from .option_kinds import (
    BLOCKS,
    BOOL,
    INDICES,
    REQUIRED,
    SIZE,
    Kind,
    Option,
    Options,
    check_value,
    either,
    integer,
    number,
    one_of,
    optional,
    pair,
    unknown_key_error,
)

__all__ = [
    'ARGUMENTS',
    'LAYERWISE_SCALING',
    'QUERY_SPECIALIZE',
    'ROPE',
    'SKIP',
    'SPECIALIZE',
    'TOKEN_GRAYING',
    'SpecViTOptions',
    'resolve',
]

# specialize: separate CLS parameters; layer_scale=None: specialize the LayerScales when the
# backbone has them
SPECIALIZE = Options(
    'specialize',
    norm=Option(True, BOOL),
    layer_scale=Option(None, optional(BOOL)),
    blocks=Option('all', BLOCKS),
    qkv_blocks=Option('first_third', BLOCKS),
    lora_rank=Option(None, optional(integer(1))),
    registers=Option('patch', one_of('patch', 'cls')),
)
TOKEN_GRAYING = Options(
    'token_graying',
    mode=Option('dct', one_of(*TOKEN_GRAYING_MODES)),
    eps=Option(REQUIRED, number(0, 1, low_open=True)),  # 1: the identity
)
# every skip connection kept (None or True); False for a stage removes its skip in ``blocks``
SKIP = Options(
    'skip',
    off=(None, True),
    on=(),
    attn=Option(True, BOOL),
    mlp=Option(True, BOOL),
    blocks=Option('all', BLOCKS),
)
# DINOv3's RoPE (facebookresearch/dinov3 dinov3/hub/backbones.py: base 100, 'separate'); the
# coordinate augmentations act in training mode only and are off unless set (DINOv3
# pretrained with rescale_coords=2)
_PERIOD = optional(number(0, low_open=True))
ROPE = Options(
    'rope',
    base=Option(100.0, _PERIOD),
    min_period=Option(None, _PERIOD),
    max_period=Option(None, _PERIOD),
    normalize_coords=Option('separate', one_of(*NORMALIZE_COORDS)),
    shift_coords=Option(None, optional(number(0))),
    jitter_coords=Option(None, optional(number(1))),
    rescale_coords=Option(None, optional(number(1))),
)
# OpenELM's layer-wise scaling: alpha, beta the (first, last) multipliers of the attention and
# MLP widths
LAYERWISE_SCALING = Options(
    'layerwise_scaling',
    alpha=Option((0.5, 1.0), pair(number(0, low_open=True))),
    beta=Option((0.5, 4.0), pair(number(0, low_open=True))),
    head_dim=Option(64, integer(1)),
    ffn_divisor=Option(64, integer(1)),
)
# EoMT's query_specialize=True or a dict of these: the query tokens' own norm1/norm2, attn.qkv
# and ls1/ls2 in the query blocks (layer_scale=None: when the backbone has LayerScale)
QUERY_SPECIALIZE = Options(
    'query_specialize',
    norm=Option(True, BOOL),
    qkv=Option(True, BOOL),
    layer_scale=Option(None, optional(BOOL)),
)
# the option dicts among SpecViT's arguments
TABLES = dict(
    specialize=SPECIALIZE,
    skip=SKIP,
    layerwise_scaling=LAYERWISE_SCALING,
    token_graying=TOKEN_GRAYING,
    rope=ROPE,
)

_BLOCK_INDEX = Kind(
    lambda v, c: integer(-c['num_layers'], c['num_layers'] - 1).accepts(v, c),
    lambda c: f'a block index in {-c["num_layers"]}..{c["num_layers"] - 1}',
)
# The kind of each of SpecViT's other arguments (their defaults are the signature's)
ARGUMENTS = dict(
    img_size=SIZE,
    patch_size=integer(1),
    in_channels=integer(1),
    embed_dims=integer(1),
    num_layers=integer(1),
    num_heads=integer(1),
    mlp_ratio=number(0, low_open=True),
    ffn_type=one_of('mlp', 'swiglu'),
    qkv_bias=BOOL,
    num_register_tokens=integer(0),
    pos_embed_cls=BOOL,
    pos_embed_interp=one_of(*POS_EMBED_MODES),
    with_pos_embed=BOOL,
    norm_eps=number(0, low_open=True),
    layer_scale_init=optional(number(0)),
    num_class_attn_layers=integer(0),
    talking_heads=BOOL,
    window_size=integer(0),
    global_attn_indexes=INDICES,
    window_padding=one_of('masked', 'zeros'),
    rel_pos_bias=optional(one_of(*REL_POS_MODES)),
    with_cls_token=BOOL,
    pretrain_img_size=optional(SIZE),
    out_indices=either(_BLOCK_INDEX, INDICES),
    final_norm=BOOL,
    output_cls_token=BOOL,
    drop_path_rate=number(0, 1),
    with_cp=BOOL,
    frozen_stages=integer(-1),
)


class SpecViTOptions(SimpleNamespace):
    """SpecViT's arguments, checked, with the option dicts merged (None where a technique is
    off) and the values derived from them: ``img_size`` and ``grid_size`` (the position
    embedding's patch grid) as pairs, ``patch_grid`` (of ``img_size``), ``num_pos``,
    ``class_attn``, ``num_prefix_tokens``, ``num_cls`` (the rows with CLS parameters),
    ``out_indices`` as a list of indices 0..num_layers - 1, ``mlp_hidden``, ``head_dim``."""


def resolve(args: dict, unknown: dict = None) -> SpecViTOptions:
    """``args`` (SpecViT's arguments by name) checked and merged; ``unknown``: the keyword
    arguments SpecViT does not take (an error naming the closest one)."""
    if unknown:
        valid = [*ARGUMENTS, *TABLES, 'init_cfg']
        raise unknown_key_error('SpecViT', next(iter(unknown)), valid)
    n = args['num_layers']
    check_value('SpecViT num_layers', n, ARGUMENTS['num_layers'])  # the others' context
    for name, kind in ARGUMENTS.items():
        check_value(f'SpecViT {name}', args[name], kind, num_layers=n)
    merged = {name: table.merge(args[name], num_layers=n) for name, table in TABLES.items()}
    o = SpecViTOptions(**{**args, **merged})
    _refuse_combinations(o)
    _derive(o)
    return o


def _refuse_combinations(o: SpecViTOptions) -> None:
    class_attn = o.num_class_attn_layers > 0
    with_cls_rows = o.specialize or o.num_register_tokens or o.pos_embed_cls or o.output_cls_token
    if class_attn and with_cls_rows:
        raise ConfigError(
            'class-attention layers (CaiT) keep the CLS token out of the '
            'self-attention stage: use them with pos_embed_cls=False, without '
            'registers, specialize or output_cls_token'
        )
    needs_cls = o.pos_embed_cls or o.specialize or class_attn or o.output_cls_token
    if not o.with_cls_token and (needs_cls or o.rel_pos_bias == 'table'):
        raise ConfigError(
            'with_cls_token=False builds no CLS token (ViTDet): set '
            'pos_embed_cls=False, and use it without specialize, class-attention '
            "layers, output_cls_token or rel_pos_bias='table' (all need CLS)"
        )
    if o.talking_heads and (o.rel_pos_bias or o.window_padding != 'masked'):
        raise ConfigError('talking heads have neither relative position bias nor windows')
    if o.rope and o.rel_pos_bias:
        raise ConfigError('rope is a relative position encoding of its own: no rel_pos_bias')
    if o.rope and o.talking_heads:
        raise ConfigError('talking heads (CaiT) have no rotary form: use rope without them')
    if not o.with_pos_embed and (o.pos_embed_cls or not o.rope):
        raise ConfigError(
            'with_pos_embed=False builds no learned position table (DINOv3): give the '
            'positions by rope=dict(...) and set pos_embed_cls=False'
        )
    if class_attn and o.ffn_type != 'mlp':
        raise ConfigError("class-attention layers (CaiT) use the plain MLP: ffn_type='mlp'")
    if o.specialize and o.specialize['layer_scale'] and not o.layer_scale_init:
        raise ConfigError(
            'specialize.layer_scale=True needs a backbone with LayerScale (layer_scale_init); '
            'this one has none, so there is nothing to specialize: set '
            'specialize.layer_scale=False (or None)'
        )


def _derive(o: SpecViTOptions) -> None:
    o.img_size = _pair(o.img_size)
    pos_size = o.img_size if o.pretrain_img_size is None else _pair(o.pretrain_img_size)
    o.grid_size = (pos_size[0] // o.patch_size, pos_size[1] // o.patch_size)
    o.patch_grid = (o.img_size[0] // o.patch_size, o.img_size[1] // o.patch_size)
    o.num_pos = o.grid_size[0] * o.grid_size[1] + int(o.pos_embed_cls)
    o.class_attn = o.num_class_attn_layers > 0
    o.num_prefix_tokens = 0 if o.class_attn else int(o.with_cls_token) + o.num_register_tokens
    o.num_cls = 0 if o.class_attn or not o.with_cls_token else 1
    if o.specialize and o.specialize['registers'] == 'cls':
        o.num_cls += o.num_register_tokens
    out_indices = [o.out_indices] if isinstance(o.out_indices, int) else o.out_indices
    o.out_indices = [i % o.num_layers for i in out_indices]
    o.mlp_hidden = int(o.embed_dims * o.mlp_ratio)
    if o.ffn_type == 'swiglu':
        o.mlp_hidden = swiglu_hidden(o.mlp_hidden)
    # every block's heads have this width (layer-wise scaling sets it)
    ls = o.layerwise_scaling
    o.head_dim = ls['head_dim'] if ls else o.embed_dims // o.num_heads


def _pair(size) -> tuple:
    return (size, size) if isinstance(size, int) else tuple(size)
