"""The SpecViT keyword arguments that rebuild the architecture of a converted state dict."""

import math
import re

import torch

from vitspec.errors import CheckpointError
from vitspec.layers.rope import rope_periods
from vitspec.layers.swiglu import swiglu_hidden

from .head_counts import heads_from_table


def _count(sd: dict, prefix: str) -> int:
    idx = {int(m.group(1)) for k in sd for m in [re.match(rf'^{prefix}\.(\d+)\.', k)] if m}
    return max(idx) + 1 if idx else 0


def infer_backbone_cfg(sd: dict, fmt: str, num_heads: int = None) -> dict:
    """Read the architecture off the tensor shapes.

    The head count comes from the weights where they show it (CaiT's talking heads), else from
    ``num_heads`` when given, else from the table of the format's published widths; a width not
    in it is a CheckpointError asking for ``num_heads`` (``--num-heads``), never a guess.
    """
    if fmt == 'dinov3':
        return _dinov3_cfg(sd, num_heads)
    for key in ('patch_embed.proj.weight', 'pos_embed', 'cls_token', 'blocks.0.attn.proj.weight'):
        if key not in sd:
            raise CheckpointError(f'not a ViT checkpoint in SpecViT layout: no {key!r}')
    embed_dims, _, patch, _ = sd['patch_embed.proj.weight'].shape
    num_pos = sd['pos_embed'].shape[1]
    side = math.isqrt(num_pos)
    pos_embed_cls = side * side != num_pos
    if pos_embed_cls:
        side = math.isqrt(num_pos - 1)
        if side * side != num_pos - 1:
            raise CheckpointError(f'pos_embed with {num_pos} rows is not a square grid')
    num_heads = _num_heads(sd, fmt, embed_dims, num_heads)
    cfg = dict(
        img_size=side * patch,
        **_blocks_cfg(sd, patch, embed_dims, num_heads),
        pos_embed_cls=pos_embed_cls,
        # DINOv2 without registers resampled with its 0.1 offset; everything else as timm
        pos_embed_interp='dinov2' if fmt == 'dinov2' and 'reg_token' not in sd else 'timm',
    )
    num_ca = _count(sd, 'blocks_token_only')
    if num_ca:
        cfg.update(num_class_attn_layers=num_ca, talking_heads='blocks.0.attn.proj_l.weight' in sd)
    return cfg


def _dinov3_cfg(sd: dict, given_heads) -> dict:
    """DINOv3: no learned position table but rotary periods (their count shows the head
    width), LayerNorm eps 1e-5, LayerScale and storage tokens (facebookresearch/dinov3
    dinov3/hub/backbones.py)."""
    for key in ('patch_embed.proj.weight', 'cls_token', 'blocks.0.attn.proj.weight'):
        if key not in sd:
            raise CheckpointError(f'not a DINOv3 ViT checkpoint: no {key!r}')
    if 'pos_embed' in sd:
        raise CheckpointError('a DINOv3 ViT has no pos_embed: is this a DINOv2 checkpoint?')
    embed_dims, _, patch, _ = sd['patch_embed.proj.weight'].shape
    periods = sd.get('rope.periods')
    if periods is None:  # timm's port: the base DINOv3 uses everywhere
        num_heads = _num_heads(sd, 'dinov3', embed_dims, given_heads)
        rope = dict(base=100.0)
    else:
        head_dim = 4 * periods.numel()
        num_heads = embed_dims // head_dim
        if given_heads and given_heads != num_heads:
            raise CheckpointError(
                f'num_heads={given_heads} was given but rope.periods ({periods.numel()} '
                f'periods: heads of {head_dim}) make {num_heads} heads of {embed_dims}'
            )
        rope = _rope_schedule(periods.float(), head_dim)
    return dict(
        img_size=224,
        **_blocks_cfg(sd, patch, embed_dims, num_heads),
        with_pos_embed=False,
        pos_embed_cls=False,
        rope=rope,
        norm_eps=1e-5,
    )


def _blocks_cfg(sd: dict, patch: int, embed_dims: int, num_heads: int) -> dict:
    """What every ViT layout shows the same way: patch, widths, depth, MLP, qkv bias,
    registers and LayerScale."""
    return dict(
        patch_size=patch,
        embed_dims=embed_dims,
        num_layers=_count(sd, 'blocks'),
        num_heads=num_heads,
        **_mlp(sd, embed_dims),
        qkv_bias='blocks.0.attn.qkv.bias' in sd,
        num_register_tokens=sd['reg_token'].shape[1] if 'reg_token' in sd else 0,
        layer_scale_init=1e-5 if 'blocks.0.ls1.gamma' in sd else None,
    )


def _rope_schedule(periods: torch.Tensor, head_dim: int) -> dict:
    """The rope options whose periods these are (DINOv3 stores them rounded to bf16): a base,
    else a min / max period range. The loaded buffer keeps the stored values."""
    n = periods.numel()
    if n > 1:
        base = float(f'{periods[-1].item() ** (head_dim / (4 * (n - 1))):.3g}')
        if torch.allclose(rope_periods(head_dim, base), periods, rtol=1e-2):
            return dict(base=base)
    lo, hi = float(f'{periods[0].item():.3g}'), float(f'{periods[-1].item():.3g}')
    if torch.allclose(rope_periods(head_dim, None, lo, hi), periods, rtol=1e-2):
        return dict(base=None, min_period=lo, max_period=hi)
    raise CheckpointError(
        f'rope.periods {periods.tolist()} follow neither a base nor a min / max period schedule'
    )


def _num_heads(sd: dict, fmt: str, embed_dims: int, given) -> int:
    if 'blocks.0.attn.proj_l.weight' in sd:  # talking heads mix the heads: one row per head
        shown = sd['blocks.0.attn.proj_l.weight'].shape[0]
        if given and given != shown:
            raise CheckpointError(
                f'num_heads={given} was given but the talking-heads weights '
                f'(blocks.0.attn.proj_l) have {shown} heads'
            )
        return shown
    if given:
        if embed_dims % given:
            raise CheckpointError(f'embed_dims {embed_dims} does not split into {given} heads')
        return given
    return heads_from_table(embed_dims, fmt)


def _mlp(sd: dict, embed_dims: int) -> dict:
    """ffn_type and mlp_ratio: a SwiGLU's fc1 is twice as wide as fc2's input (gate, value)."""
    for key in ('blocks.0.mlp.fc1.weight', 'blocks.0.mlp.fc2.weight'):
        if key not in sd:
            raise CheckpointError(f'cannot read the MLP width: no {key!r}')
    fc1_out = sd['blocks.0.mlp.fc1.weight'].shape[0]
    hidden = sd['blocks.0.mlp.fc2.weight'].shape[1]
    if fc1_out == hidden:
        return dict(mlp_ratio=fc1_out / embed_dims, ffn_type='mlp')
    if fc1_out != 2 * hidden:
        raise CheckpointError(
            f'blocks.0.mlp: fc1 gives {fc1_out} features, fc2 reads {hidden}; '
            f'neither a plain MLP (equal) nor a SwiGLU (twice)'
        )
    # SpecViT derives the SwiGLU width from mlp_ratio by DINOv2's rule: find the ratio that
    # gives this width, DINOv2's own 4 first (ViT-g: 4 * 1536 -> 4096)
    for ratio in (4.0, hidden * 1.5 / embed_dims):
        if swiglu_hidden(int(embed_dims * ratio)) == hidden:
            return dict(mlp_ratio=ratio, ffn_type='swiglu')
    raise CheckpointError(
        f'blocks.0.mlp: SwiGLU hidden width {hidden} is not a multiple of 8, '
        "which no mlp_ratio gives under DINOv2's width rule"
    )
