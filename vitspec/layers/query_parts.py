"""Query-token specialization (EoMT's query tokens get their own parameters, as the CLS token
does under the layer specialization of 2602.08626).

In a block given query parts, the query tokens (``TokenLayout.num_queries``, right before the
patches) take their own ``query_norm1`` / ``query_norm2`` / ``query_ls1`` / ``query_ls2`` and
``attn.query_qkv``; the attention itself stays one joint attention and the projection and MLP stay
shared. Each part runs on all tokens and its query rows are then replaced by the query copy's
output on those rows (one copy of the part's output; the shared FLOPs spent on the query rows
are a few percent of a block's). The copies are plain layers named after the shared part with a
``query_`` prefix, so a checkpoint without them loads and fills them from the shared weights
(`query_shared_key`).
"""

import copy
import re
from typing import Optional

import torch
from torch import nn

from .layer_scale import LayerScale, NoLayerScale
from .plain import LayerNorm, Linear
from .token_layout import TokenLayout

QUERY_PARTS = ('norm1', 'norm2', 'ls1', 'ls2', 'qkv')
_QUERY_KEY = re.compile(r'(^|\.)query_(norm1|norm2|ls1|ls2|qkv)\.')


def is_query_key(key: str) -> bool:
    """Whether a state-dict key names a query copy (``blocks.9.query_norm1.weight``)."""
    return _QUERY_KEY.search(key) is not None


def query_shared_key(key: str) -> str:
    """``'blocks.9.attn.query_qkv.weight'`` -> ``'blocks.9.attn.qkv.weight'``."""
    if not is_query_key(key):
        raise ValueError(f'{key!r} is not a query-copy key (query_{{{",".join(QUERY_PARTS)}}})')
    return _QUERY_KEY.sub(r'\1\2.', key, count=1)


def with_query_rows(
    out: torch.Tensor, part: Optional[nn.Module], x: torch.Tensor, layout: TokenLayout
) -> torch.Tensor:
    """``out`` (a shared part's output on all tokens of ``x``) with its query rows replaced by
    ``part``'s output on the query rows of ``x``; ``out`` itself when there is no query part or
    no query token."""
    if part is None or not layout.num_queries:
        return out
    rows = layout.query_slice(x.shape[1])
    # out of place: ``out`` may come from a custom autograd Function (the specialized layers)
    return out.slice_scatter(part(x[:, rows]).to(out.dtype), 1, rows.start, rows.stop)


def attach_query_parts(
    block: nn.Module, norm: bool = True, qkv: bool = True, layer_scale: Optional[bool] = None
) -> None:
    """Give ``block`` (a `Block` with an `Attention`) query copies of its parts, each starting
    as the shared part (so the block computes what it did). ``layer_scale=None``: copy the
    LayerScales when the block has them; True on a block without LayerScale is refused."""
    has_ls = not isinstance(block.ls1, NoLayerScale)
    if layer_scale and not has_ls:
        raise ValueError('query_specialize.layer_scale=True, but the backbone has no LayerScale')
    if norm:
        block.query_norm1 = _plain_norm(block.norm1)
        block.query_norm2 = _plain_norm(block.norm2)
    if layer_scale or (layer_scale is None and has_ls):
        block.query_ls1 = _plain_layer_scale(block.ls1)
        block.query_ls2 = _plain_layer_scale(block.ls2)
    if qkv:
        block.attn.query_qkv = _plain_linear(block.attn.qkv)


@torch.no_grad()
def _plain_norm(shared: nn.Module) -> LayerNorm:
    norm = LayerNorm(shared.weight.shape[0], eps=shared.eps)
    norm.weight.copy_(shared.weight)
    norm.bias.copy_(shared.bias)
    return norm.to(shared.weight.device)


@torch.no_grad()
def _plain_layer_scale(shared: nn.Module) -> LayerScale:
    ls = LayerScale(shared.gamma.shape[0])
    ls.gamma.copy_(shared.gamma)
    return ls.to(shared.gamma.device)


@torch.no_grad()
def _plain_linear(shared: nn.Module) -> Linear:
    if type(shared) is Linear:
        return copy.deepcopy(shared)
    linear = Linear(shared.in_features, shared.out_features, bias=shared.bias is not None)
    linear.weight.copy_(shared.weight)
    if shared.bias is not None:
        linear.bias.copy_(shared.bias)
    return linear.to(shared.weight.device)
