"""Query-token specialization: EoMT's query tokens get their own parameters in the blocks that
carry them, as the CLS token does under the layer specialization of 2602.08626.

`attach_query_parts` turns a built `Block` into a `QueryBlock` (and its `Attention` into a
`QueryAttention`) in place: the query tokens (``TokenLayout.num_queries``, right before the
patches) then take their own ``query_norm1`` / ``query_norm2`` / ``query_ls1`` / ``query_ls2``
and ``attn.query_qkv``; the attention stays one joint attention and the projection and MLP stay
shared. Each part runs on all tokens and its query rows are then replaced by the query copy's
output on those rows (one copy of the part's output; the shared FLOPs spent on the query rows
are a few percent of a block's). The plain Block and Attention know nothing of queries.

The copies are plain layers named after the shared part with a ``query_`` prefix, so a
checkpoint without them loads and fills them from the shared weights (`QueryBlock.copy_sources`,
read by the checkpoint filter).
"""

import copy
import re
from typing import Optional

import torch
from torch import nn

from vitspec.errors import ConfigError
from vitspec.layers import Attention, Block, LayerNorm, LayerScale, Linear, NoLayerScale
from vitspec.layers.token_layout import TokenLayout

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


class QueryAttention(Attention):
    """`Attention` whose query tokens take ``query_qkv`` (None: the shared ``qkv``)."""

    query_qkv: Optional[nn.Module]

    def _qkv(self, x: torch.Tensor, layout: TokenLayout = TokenLayout()):
        qkv = with_query_rows(self.qkv(x, layout.num_cls), self.query_qkv, x, layout)
        return self._split_heads(qkv)


class QueryBlock(Block):
    """`Block` whose query tokens take ``query_norm1`` / ``query_ls1`` / ``query_norm2`` /
    ``query_ls2`` (each None: the shared part) and whose attention is a `QueryAttention`."""

    query_norm1: Optional[nn.Module]
    query_ls1: Optional[nn.Module]
    query_norm2: Optional[nn.Module]
    query_ls2: Optional[nn.Module]

    def attention_stage(self, x: torch.Tensor, layout: TokenLayout = TokenLayout()):
        y = self.attn(_rows(self.norm1, self.query_norm1, x, layout), layout)
        y = self.drop_path1(_rows(self.ls1, self.query_ls1, y, layout))
        return x + y if self.skip_attn else y

    def mlp_stage(self, x: torch.Tensor, layout: TokenLayout = TokenLayout()):
        y = self.mlp(_rows(self.norm2, self.query_norm2, x, layout), layout)
        y = self.drop_path2(_rows(self.ls2, self.query_ls2, y, layout))
        return x + y if self.skip_mlp else y

    def copy_sources(self) -> dict:
        """{key of a query copy: key of the shared part it starts from}, keys of this block's
        state dict (what a checkpoint without the copies fills them from)."""
        return {k: query_shared_key(k) for k in self.state_dict() if is_query_key(k)}


def _rows(shared: nn.Module, query, x: torch.Tensor, layout: TokenLayout) -> torch.Tensor:
    return with_query_rows(shared(x, layout.num_cls), query, x, layout)


def attach_query_parts(
    block: Block, norm: bool = True, qkv: bool = True, layer_scale: Optional[bool] = None
) -> None:
    """Make ``block`` (a `Block` with an `Attention`) a `QueryBlock` in place, with query copies
    of its parts, each starting as the shared part (so the block computes what it did). Its
    modules and parameters stay the same objects. ``layer_scale=None``: copy the LayerScales
    when the block has them; True on a block without LayerScale is refused."""
    has_ls = not isinstance(block.ls1, NoLayerScale)
    if layer_scale and not has_ls:
        raise ConfigError('query_specialize.layer_scale=True, but the backbone has no LayerScale')
    if type(block) is not Block or type(block.attn) is not Attention:
        raise ConfigError(
            f'query parts go on a plain Block with the joint Attention, got '
            f'{type(block).__name__} with {type(block.attn).__name__}'
        )
    block.__class__ = QueryBlock
    block.attn.__class__ = QueryAttention
    copy_ls = layer_scale or (layer_scale is None and has_ls)
    block.query_norm1 = _plain_norm(block.norm1) if norm else None
    block.query_norm2 = _plain_norm(block.norm2) if norm else None
    block.query_ls1 = _plain_layer_scale(block.ls1) if copy_ls else None
    block.query_ls2 = _plain_layer_scale(block.ls2) if copy_ls else None
    block.attn.query_qkv = _plain_linear(block.attn.qkv) if qkv else None


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
