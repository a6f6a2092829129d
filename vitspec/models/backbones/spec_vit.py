"""SpecViT: one plain-ViT backbone whose options switch the backbone techniques on."""

from itertools import islice
from typing import Sequence, Union

import torch
from mmengine.model import BaseModule
from mmengine.model.weight_init import trunc_normal_
from torch import nn
from torch.utils.checkpoint import checkpoint

from vitspec.checkpoints import load_pretrained
from vitspec.checkpoints.filtered import FilteredCheckpoint
from vitspec.layers import LayerNorm, TokenLayout
from vitspec.layers.patch_embed import PatchEmbed, center_pad_to_multiple
from vitspec.layers.pos_embed import resample_pos_embed
from vitspec.layers.rope import RopePositionEmbedding
from vitspec.layers.token_graying import TokenGraying
from vitspec.layers.vit_init import init_vit_weights

from ..registry import register_backbone
from .block_parts import build_blocks, build_class_attention_blocks
from .checkpoint_filter import filter_checkpoint
from .inert_probe import refuse_inert_probe
from .options import ARGUMENTS, TABLES, resolve

# The constructor arguments that switch a backbone technique (the docstring's "Techniques"),
# as against size, outputs and training: what a technique comparison may let differ
# (vitspec.runs.technique_comparison).
TECHNIQUE_ARGS = (
    'layer_scale_init',
    'num_register_tokens',
    'pos_embed_cls',
    'with_pos_embed',
    'rope',
    'num_class_attn_layers',
    'talking_heads',
    'layerwise_scaling',
    'token_graying',
    'specialize',
    'skip',
    'window_size',
    'global_attn_indexes',
    'window_padding',
    'rel_pos_bias',
    'with_cls_token',
    'pretrain_img_size',
)
# The attributes SpecViT keeps from its resolved options (`options.SpecViTOptions`): what the
# checkpoint filter, EoMT, the ViT-Adapter and the export read
KEPT_OPTIONS = (
    'patch_size',
    'embed_dims',
    'num_layers',
    'grid_size',
    'num_register_tokens',
    'class_attn',
    'with_cls_token',
    'num_prefix_tokens',
    'pos_embed_cls',
    'pos_embed_interp',
    'final_norm',
    'layer_scale_init',
    'output_cls_token',
    'with_cp',
    'frozen_stages',
    'out_indices',
    'num_cls',
)


@register_backbone
class SpecViT(BaseModule):
    """Pre-norm Vision Transformer with timm parameter names, for dense prediction.

    Tokens are laid out ``[CLS | registers | patches]``. The learned position embedding covers
    the patch grid of ``img_size`` (plus the CLS slot when ``pos_embed_cls``) and is resampled
    to the grid of every input (``pos_embed_interp``: 'timm' or the original 'dinov2' rule);
    an input that is not a multiple of ``patch_size`` is zero-padded on both sides first, as
    DINOv2 does, so the maps have ceil(H / patch) x ceil(W / patch) cells. Returns a tuple of
    NCHW patch-token maps, one per entry of ``out_indices`` (0-based block indices), normalized
    by the final norm if ``final_norm``; with ``output_cls_token`` each entry is ``(map, cls)``
    with the (B, C) CLS token beside it (as mmseg's ViT and DINOv2's depth heads expect).
    Blocks after the last of ``out_indices`` do not run (timm's ``stop_early``); the blocks run
    through `run_blocks`, the one block loop that EoMT and the ViT-Adapter use too.

    ``with_pos_embed=False``: no learned table (needs ``rope``; set ``pos_embed_cls=False``).
    ``norm_eps``: of every LayerNorm (1e-6 as timm's ViT and DINOv2; DINOv3 uses 1e-5).

    ``ffn_type``: 'mlp' (fc1, GELU, fc2) or 'swiglu' (DINOv2 ViT-g: fc1 packs gate and value,
    hidden width ``int(embed_dims * mlp_ratio)`` cut to 2/3 and rounded up to 8, as DINOv2's
    'swiglufused'; with layerwise_scaling each block's width is the gated one, as OpenELM's GLU).

    Every argument's kind, the option dicts' keys and defaults, and the combinations refused
    are in `options` (checked there once, before any part is built).

    Techniques (all off by default; ``TECHNIQUE_ARGS`` names these arguments, with
    ``pos_embed_cls`` and ``with_pos_embed``):
      layer_scale_init: LayerScale on both residual branches (CaiT).
      num_register_tokens: registers (2309.16588), after CLS, without position embedding.
      rope: dict(base, min_period, max_period, normalize_coords, shift_coords, jitter_coords,
        rescale_coords) or True: DINOv3's 2-D rotary position embedding (``rope.periods``) of
        q and k of the patch tokens in every attention, from the patch grid of each input (in
        windowed blocks too: the global coordinates); CLS and registers are not rotated; in
        the class-attention blocks the patch keys are. The coordinate augmentations act in
        training mode only. Not with rel_pos_bias or talking heads.
      num_class_attn_layers, talking_heads: CaiT. The self-attention stage sees only the
        patches; the class-attention blocks ``blocks_token_only`` update the CLS token alone.
        Dense outputs come from the self-attention stage, so those blocks are frozen here.
      layerwise_scaling: dict(alpha, beta, head_dim, ffn_divisor): OpenELM per-block heads
        and MLP widths, residual width constant.
      token_graying: dict(mode='dct'|'svd', eps): conditions the image before patch embedding.
      skip: dict(attn, mlp, blocks): attn=False / mlp=False remove that stage's skip
        connection in ``blocks`` ('all', 'first_third', 'first_half', n or a list), the
        ablation of "Always Skip Attention" (2505.01996); not with drop_path_rate (no residual
        branch to drop). The class-attention blocks keep theirs.
      specialize: dict(norm, layer_scale, blocks, qkv_blocks, lora_rank, registers): separate
        CLS parameters for norm1/norm2 (and ls1/ls2) in ``blocks`` and for attn.qkv in
        ``qkv_blocks`` (full, or low-rank with ``lora_rank``); registers go with the 'patch'
        or the 'cls' group. One joint attention, shared proj and MLP: no extra FLOPs.
      window_size, global_attn_indexes: ViTDet. Blocks not in ``global_attn_indexes`` attend
        within window_size x window_size windows of the patch grid, padded to a multiple
        (``window_padding``: 'masked' keys, or 'zeros' tokens as ViTDet); CLS and registers
        attend among themselves there.
      rel_pos_bias: 'decomposed' (ViTDet / SAM ``attn.rel_pos_h``, ``attn.rel_pos_w`` per block,
        made for the window, or for the patch grid of ``img_size`` in global blocks, resampled
        linearly for another grid) or 'table' (BEiT / MAE segmentation
        ``attn.relative_position_bias_table`` for the patch grid of ``img_size``, with CLS
        entries; another grid is refused). Zero at init; a checkpoint without them fills zeros.
      with_cls_token=False: no CLS token (ViTDet), hence no CLS position slot
        (``pos_embed_cls=False``); the loader drops a checkpoint's cls_token and CLS slot.
      pretrain_img_size: the position embedding covers this image size's patch grid instead of
        img_size's and is resampled to every input (ViTDet: 224, ``pos_embed_interp='vitdet'``),
        while img_size still sets the global blocks' relative position grid.
    """

    def __init__(
        self,
        img_size: Union[int, Sequence[int]] = 224,
        patch_size: int = 16,
        in_channels: int = 3,
        embed_dims: int = 768,
        num_layers: int = 12,
        num_heads: int = 12,
        mlp_ratio: float = 4.0,
        ffn_type: str = 'mlp',
        qkv_bias: bool = True,
        num_register_tokens: int = 0,
        pos_embed_cls: bool = True,
        pos_embed_interp: str = 'timm',
        with_pos_embed: bool = True,
        rope: dict = None,
        norm_eps: float = 1e-6,
        layer_scale_init: float = None,
        num_class_attn_layers: int = 0,
        talking_heads: bool = False,
        layerwise_scaling: dict = None,
        token_graying: dict = None,
        specialize: dict = None,
        skip: dict = None,
        window_size: int = 0,
        global_attn_indexes: Sequence[int] = (),
        window_padding: str = 'masked',
        rel_pos_bias: str = None,
        with_cls_token: bool = True,
        pretrain_img_size: Union[int, Sequence[int]] = None,
        out_indices: Union[int, Sequence[int]] = -1,
        final_norm: bool = True,
        output_cls_token: bool = False,
        drop_path_rate: float = 0.0,
        with_cp: bool = False,
        frozen_stages: int = -1,
        init_cfg=None,
        **unknown,
    ):
        # every argument is checked and merged by `options.resolve`, before any part is built
        o = resolve({k: v for k, v in locals().items() if k in ARGUMENTS or k in TABLES}, unknown)
        super().__init__(init_cfg=init_cfg)
        for name in KEPT_OPTIONS:
            setattr(self, name, getattr(o, name))
        graying = o.token_graying
        self.token_graying = TokenGraying(patch_size, **graying) if graying else None
        self.patch_embed = PatchEmbed(patch_size, in_channels, embed_dims)
        self.cls_token = _tokens(1, embed_dims) if with_cls_token else None
        self.reg_token = _tokens(num_register_tokens, embed_dims) if num_register_tokens else None
        self.pos_embed = _tokens(o.num_pos, embed_dims) if with_pos_embed else None
        self.rope = RopePositionEmbedding(o.head_dim, **o.rope) if o.rope else None
        self.blocks = build_blocks(o)
        self.blocks_token_only = build_class_attention_blocks(o)
        self.norm = LayerNorm(embed_dims, eps=norm_eps)
        self._freeze_stages()  # before any DDP wrapper records which parameters train

    def init_weights(self):
        if self.init_cfg is not None and self.init_cfg.get('type') == 'Pretrained':
            source = self.init_cfg['checkpoint']
            loaded = load_pretrained(self, source)
            refuse_inert_probe(self, loaded.filled, loaded.backbone_cfg, source)
            self._is_init = True
            return
        if self.pos_embed is not None:
            trunc_normal_(self.pos_embed, std=0.02)
        for token in (self.cls_token, self.reg_token):
            if token is not None:
                nn.init.normal_(token, std=1e-6)
        init_vit_weights(self, std=0.02)
        super().init_weights()

    def filter_checkpoint(self, state_dict: dict) -> FilteredCheckpoint:
        """A converted state dict adapted to this backbone (`checkpoint_filter.filter_checkpoint`:
        CLS token dropped where there is none, pos_embed resampled, missing parts filled); the
        loader calls it before its strict load."""
        return filter_checkpoint(self, state_dict)

    def get_layer_depth(self, param_name: str, prefix: str = ''):
        """(depth of the parameter, number of depths) for layer-wise lr decay: 0 for the
        embeddings, i + 1 for block i, then the class-attention blocks, the last for the rest."""
        num_ca = len(self.blocks_token_only) if self.class_attn else 0
        total = self.num_layers + num_ca + 2
        if not param_name.startswith(prefix):
            return total - 1, total
        name = param_name[len(prefix) :]
        if name.startswith(('patch_embed', 'cls_token', 'reg_token', 'pos_embed')):
            return 0, total
        if name.startswith('blocks.'):
            return int(name.split('.')[1]) + 1, total
        if name.startswith('blocks_token_only.'):
            return self.num_layers + 1 + int(name.split('.')[1]), total
        return total - 1, total

    def _embed(self, x: torch.Tensor):
        x, hw = self.patch_embed(x)
        num_pos_prefix = int(self.pos_embed_cls)
        if self.pos_embed is not None:
            pos = resample_pos_embed(
                self.pos_embed, hw, self.grid_size, num_pos_prefix, self.pos_embed_interp
            )
            x = x + pos[:, num_pos_prefix:]
        if self.class_attn:  # CaiT: the self-attention stage sees the patches only
            return x, hw
        tokens = [x]
        if self.reg_token is not None:  # registers carry no position embedding
            tokens.insert(0, self.reg_token.expand(x.shape[0], -1, -1))
        if self.cls_token is not None:  # ViTDet has none
            cls = self.cls_token.expand(x.shape[0], -1, -1)
            tokens.insert(0, cls + pos[:, :1] if self.pos_embed_cls else cls)
        return torch.cat(tokens, dim=1) if len(tokens) > 1 else x, hw

    def tokens(self, x: torch.Tensor):
        """The tokens the first block reads and their TokenLayout, from an image already padded
        to a multiple of the patch size: what a model that runs the blocks itself (EoMT, the
        ViT-Adapter) starts from."""
        if self.token_graying is not None:
            x = self.token_graying(x)
        x, hw = self._embed(x)
        rope = None if self.rope is None else self.rope(hw, self.num_prefix_tokens)
        return x, TokenLayout(self.num_cls, hw, rope)

    def run_blocks(
        self,
        x: torch.Tensor,
        layout: TokenLayout,
        start: int = 0,
        stop: int = None,
        with_cp: bool = None,
    ) -> torch.Tensor:
        """The tokens after blocks ``start`` to ``stop - 1`` (None: the last), from the tokens
        ``x`` laid out as ``layout``: the one block loop of SpecViT and of every model that runs
        its blocks (EoMT, the ViT-Adapter), as timm's ``forward_intermediates``. ``with_cp``
        (None: the backbone's): activation checkpointing of each block while ``x`` needs grad."""
        with_cp = self.with_cp if with_cp is None else with_cp
        for blk in islice(self.blocks, start, stop):  # a slice would build a ModuleList
            if with_cp and x.requires_grad:
                x = checkpoint(blk, x, layout, use_reentrant=False)
            else:
                x = blk(x, layout)
        return x

    def forward(self, x: torch.Tensor):
        B = x.shape[0]
        x, layout = self.tokens(center_pad_to_multiple(x, self.patch_size))
        h, w = layout.hw
        outs, start = [], 0
        for i in sorted(set(self.out_indices)):
            x = self.run_blocks(x, layout, start, i + 1)
            start = i + 1
            y = self.norm(x) if self.final_norm else x
            fmap = y[:, self.num_prefix_tokens :].transpose(1, 2).reshape(B, -1, h, w)
            outs.append((fmap, y[:, 0]) if self.output_cls_token else fmap)
        return tuple(outs)

    def forward_cls(self, patches: torch.Tensor, hw=None) -> torch.Tensor:
        """CaiT: the CLS token after the class-attention blocks, from the final patch tokens
        (with ``rope``, of the (h, w) grid ``hw``)."""
        if self.rope is not None and hw is None:
            raise ValueError('with rope, forward_cls needs the patch grid: forward_cls(x, hw)')
        rope = None if self.rope is None else self.rope(hw, num_prefix=1)
        cls = self.cls_token.expand(patches.shape[0], -1, -1)
        for blk in self.blocks_token_only:
            cls = blk(patches, cls, rope)
        return self.norm(torch.cat([cls, patches], dim=1))[:, 0]

    def _freeze_stages(self):
        if self.class_attn:  # no dense loss reaches them (see the class docstring)
            self.blocks_token_only.requires_grad_(False)
            self.cls_token.requires_grad = False
        elif not self.final_norm:  # unused: a trainable unused parameter upsets DDP
            self.norm.requires_grad_(False)
        if self.frozen_stages < 0:
            return
        frozen = [self.patch_embed, *self.blocks[: self.frozen_stages]]
        if self.frozen_stages >= self.num_layers:
            frozen.append(self.norm)
        for m in frozen:
            m.eval()
            m.requires_grad_(False)
        for p in (self.cls_token, self.reg_token, self.pos_embed):
            if p is not None:
                p.requires_grad = False

    def train(self, mode: bool = True):
        super().train(mode)
        self._freeze_stages()
        return self


def _tokens(num: int, embed_dims: int) -> nn.Parameter:
    """(1, num, embed_dims) learned rows, zero until `SpecViT.init_weights`."""
    return nn.Parameter(torch.zeros(1, num, embed_dims))
