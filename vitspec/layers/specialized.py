"""Token-type-specialized layers ("Revisiting [CLS] and Patch Token Interaction", 2602.08626):
rows of the token sequence with parameters of their own.

A layer serves row groups (``groups``: `ROW_GROUPS`, the CLS group and EoMT's queries);
``forward(x, layout)`` applies each group's parameters to its rows in the `TokenLayout` and the
shared ones to the rest (an int layout ``n``: the first ``n`` tokens are the CLS group). The
shared parameters keep timm's names and a group's carry its prefix (``cls_weight``,
``query_weight``), so a plain timm checkpoint lacks only the group keys (`shared_key`: what
each starts from). Each layer runs the op on all tokens and changes the group rows with the
group's path on those slices: no extra FLOPs on the patch tokens and no full-size
concatenation; the norm and the linear have their own backward (`specialized_functional`),
which spares autograd's copy of the whole gradient behind an in-place write.

Without autograd (inference, a frozen backbone), a LayerScale takes a per-token (N, D) table
of its scales, built once per token layout and kept while they stay as they are: the
LayerScale and its skip connection are then one ``addcmul``, one kernel fewer than timm's
product and sum. A table holds at most ``TABLE_MAX_ELEMENTS`` (2 MB in float32; ViT-B/16 at 224
px keeps 1.2 MB a block); a longer sequence writes the group rows apart. The norm keeps its
group-row kernels: a table there makes its affine a second pass over the activation, which cost
3-4 % of inference time on a CPU (docs/benchmarks.md). Under ``torch.compile`` both take
per-token rows of their parameters, which inductor fuses into the kernels that read them.
"""

import math
import re
from typing import Dict, Optional, Sequence, Union

import torch
import torch.nn.functional as F
from timm.layers import LayerScale as TimmLayerScale
from timm.layers import trunc_normal_
from torch import nn

from .parameter_cache import ParameterCache
from .specialized_functional import (
    linear_into,
    lora_linear,
    records_grad,
    row_spans,
    specialized_layer_norm,
    specialized_linear,
    specialized_scale_add,
    token_rows,
)
from .token_layout import ROW_GROUPS, TokenLayout, as_layout

TABLE_MAX_ELEMENTS = 1 << 19

# a group's parameter, less its prefix -> the shared one it starts from (None: its own init)
_GROUP_PARAMS = dict(weight='weight', bias='bias', gamma='gamma', lora_a=None, lora_b=None)
_GROUP_KEY = re.compile(rf'(^|\.)({"|".join(ROW_GROUPS)})_({"|".join(_GROUP_PARAMS)})$')

Layout = Union[TokenLayout, int]


def row_group_of(key: str) -> Optional[str]:
    """The row group (``'cls'``, ``'query'``) whose copy a state-dict key names, or None."""
    match = _GROUP_KEY.search(key)
    return match.group(2) if match else None


def is_cls_key(key: str) -> bool:
    """Whether a state-dict key names the CLS copy of a specialized layer."""
    return row_group_of(key) == 'cls'


def shared_key(key: str) -> Optional[str]:
    """State-dict key of the shared parameter a row group's copy is initialized from.

    ``'blocks.0.norm1.cls_weight'`` -> ``'blocks.0.norm1.weight'``, ``'blocks.9.attn.qkv.
    query_bias'`` -> ``'blocks.9.attn.qkv.bias'``; LoRA factors have their own init and map to
    None. Raises ValueError for a key that is no group's copy (see ``row_group_of``).
    """
    match = _GROUP_KEY.search(key)
    if match is None:
        raise ValueError(
            f"{key!r} is not a CLS-copy key nor another row group's copy "
            f'(<{"|".join(ROW_GROUPS)}>_<{"|".join(_GROUP_PARAMS)}>)'
        )
    shared = _GROUP_PARAMS[match.group(3)]
    return None if shared is None else key[: match.start()] + match.group(1) + shared


class _Specialized(nn.Module):
    """A layer whose row groups ``groups`` have parameters of their own."""

    groups: tuple

    @torch.no_grad()
    def init_group_from_shared(self, group: str = 'cls') -> None:
        """Copy the shared parameters into ``group``'s: the layer then acts on its rows as the
        plain one."""
        for name, param in self.named_parameters(recurse=False):
            prefix, _, suffix = name.partition('_')
            if prefix == group and _GROUP_PARAMS.get(suffix):
                param.copy_(getattr(self, _GROUP_PARAMS[suffix]))

    def _rows(self, layout: Layout, num_tokens: int):
        """(rows, groups): this layer's groups with rows in ``layout``, ascending, and their rows
        in `specialized_functional`'s terms (a lone group on the first rows as its row count)."""
        layout = as_layout(layout)
        present = sorted((layout.group_rows(g, num_tokens), g) for g in self.groups)
        present = [(span, g) for span, g in present if span[1] > span[0]]
        if len(present) == 1 and present[0][0][0] == 0:
            return present[0][0][1], [present[0][1]]
        return tuple(span for span, _ in present), [g for _, g in present]

    def _of(self, name: str, groups: Sequence[str], rows):
        """The groups' ``name`` parameters, in the form ``rows`` asks."""
        params = [getattr(self, f'{g}_{name}') for g in groups]
        return params[0] if isinstance(rows, int) else params


def init_group_from_shared(module: nn.Module, group: str = 'cls') -> None:
    """``init_group_from_shared`` on every specialized layer in ``module`` (e.g. a whole
    backbone) that serves ``group``."""
    for m in module.modules():
        if isinstance(m, _Specialized) and group in m.groups:
            m.init_group_from_shared(group)


init_cls_from_shared = init_group_from_shared  # its default group: CLS


def _groups(groups: Sequence[str]) -> tuple:
    if not set(groups) <= set(ROW_GROUPS) or len(set(groups)) != len(groups):
        raise ValueError(f'row groups are distinct names of {", ".join(ROW_GROUPS)}, got {groups}')
    return tuple(groups)


class SpecializedLayerNorm(_Specialized):
    """LayerNorm over the last dim with separate affine parameters for each row group."""

    def __init__(self, dim: int, eps: float = 1e-6, groups: Sequence[str] = ('cls',)):
        super().__init__()
        self.normalized_shape = (dim,)
        self.eps = eps
        self.groups = _groups(groups)
        self.weight = nn.Parameter(torch.empty(dim))
        self.bias = nn.Parameter(torch.empty(dim))
        for g in self.groups:
            setattr(self, f'{g}_weight', nn.Parameter(torch.empty(dim)))
            setattr(self, f'{g}_bias', nn.Parameter(torch.empty(dim)))
        self.reset_parameters()

    @torch.no_grad()
    def reset_parameters(self) -> None:
        """nn.LayerNorm's init for every copy: weight 1, bias 0."""
        for g in ('', *(f'{g}_' for g in self.groups)):
            nn.init.ones_(getattr(self, g + 'weight'))
            nn.init.zeros_(getattr(self, g + 'bias'))

    def forward(self, x: torch.Tensor, layout: Layout) -> torch.Tensor:
        rows, groups = self._rows(layout, x.shape[1])
        if not groups:
            return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        row_weight, row_bias = self._of('weight', groups, rows), self._of('bias', groups, rows)
        device = x.device.type
        if torch.amp.is_autocast_available(device) and torch.is_autocast_enabled(device):
            x = x.float()  # autocast runs layer_norm in float32
        if torch.compiler.is_compiling():  # inductor fuses the per-token rows into the norm
            n = x.shape[1]
            weight = token_rows(self.weight, row_weight, rows, n)
            bias = token_rows(self.bias, row_bias, rows, n)
            return torch.addcmul(bias, F.layer_norm(x, self.normalized_shape, eps=self.eps), weight)
        return specialized_layer_norm(
            x, self.weight, self.bias, row_weight, row_bias, self.eps, rows
        )

    def extra_repr(self) -> str:
        return f'{self.normalized_shape[0]}, eps={self.eps}, groups={self.groups}'


class SpecializedLayerScale(_Specialized):
    """timm's LayerScale (``x * gamma``) with a separate gamma for each row group
    (``cls_gamma``, ...)."""

    def __init__(self, dim: int, init_value: float = 1e-5, groups: Sequence[str] = ('cls',)):
        super().__init__()
        self.init_value = init_value
        self.groups = _groups(groups)
        self.gamma = nn.Parameter(torch.empty(dim))
        for g in self.groups:
            setattr(self, f'{g}_gamma', nn.Parameter(torch.empty(dim)))
        self._tables = ParameterCache()
        self.reset_parameters()

    @torch.no_grad()
    def reset_parameters(self) -> None:
        """Every copy at ``init_value``."""
        for g in ('', *(f'{g}_' for g in self.groups)):
            nn.init.constant_(getattr(self, g + 'gamma'), self.init_value)

    def token_scale(self, num_tokens: int, layout: Layout) -> torch.Tensor:
        """The (num_tokens, D) scale: each group's gamma on its rows, ``gamma`` on the others;
        without autograd, kept while the scales stay as they are (up to
        ``TABLE_MAX_ELEMENTS``)."""
        return self._table(num_tokens, *self._rows(layout, num_tokens))

    def _table(self, num_tokens: int, rows, groups) -> torch.Tensor:
        row_gamma = self._of('gamma', groups, rows)

        def build():
            return token_rows(self.gamma, row_gamma, rows, num_tokens)

        if not self._keeps_table(num_tokens):
            return build()
        params = (self.gamma, *(getattr(self, f'{g}_gamma') for g in groups))
        return self._tables.get((num_tokens, row_spans(rows)), params, build)

    def _keeps_table(self, num_tokens: int) -> bool:
        return num_tokens * self.gamma.shape[0] <= TABLE_MAX_ELEMENTS

    def forward(self, x: torch.Tensor, layout: Layout) -> torch.Tensor:
        rows, groups = self._rows(layout, x.shape[1])
        if not groups:
            return x * self.gamma
        return x * self._table(x.shape[1], rows, groups)

    def add_to(self, residual: torch.Tensor, x: torch.Tensor, layout: Layout) -> torch.Tensor:
        """``residual + self(x, layout)`` (a block's skip connection), in as many kernels as
        timm's LayerScale and sum; without autograd, in one."""
        rows, groups = self._rows(layout, x.shape[1])
        if not groups:
            return residual + x * self.gamma
        gammas = [getattr(self, f'{g}_gamma') for g in groups]
        frozen = self._keeps_table(x.shape[1]) and not records_grad(
            residual, x, self.gamma, *gammas
        )
        if frozen or torch.compiler.is_compiling():
            return torch.addcmul(residual, x, self._table(x.shape[1], rows, groups))
        return specialized_scale_add(residual, x, self.gamma, self._of('gamma', groups, rows), rows)


class SpecializedLinear(_Specialized):
    """Linear layer with a separate weight for each row group: full, or low-rank (LoRA).

    ``groups``: the group names, each with ``lora_rank`` (None: full), or a dict {group: its
    rank or None}. Full: ``<group>_weight``, ``<group>_bias``. With rank r: ``W_g = weight +
    <group>_lora_b @ <group>_lora_a`` (A: (r, in), B: (out, r), zero-initialized) and a full
    ``<group>_bias``; its rows are the all-token output plus ``x_g (B A)^T + (b_g - b)``, so
    with equal parameters it reproduces ``F.linear`` bit for bit. The full form computes the
    group rows with their own (small) GEMM, which may round differently from the same rows of
    the all-token GEMM (about 1e-6 relative in fp32); the other rows are always ``F.linear``'s.
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        lora_rank: Optional[int] = None,
        groups: Union[Sequence[str], Dict[str, Optional[int]]] = ('cls',),
    ):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        ranks = dict(groups) if isinstance(groups, dict) else dict.fromkeys(groups, lora_rank)
        self.groups = _groups(tuple(ranks))
        self.ranks = ranks
        self.lora_rank = ranks.get('cls')
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.bias = nn.Parameter(torch.empty(out_features)) if bias else None
        for g, rank in ranks.items():
            if rank:
                setattr(self, f'{g}_lora_a', nn.Parameter(torch.empty(rank, in_features)))
                setattr(self, f'{g}_lora_b', nn.Parameter(torch.empty(out_features, rank)))
            else:
                setattr(self, f'{g}_weight', nn.Parameter(torch.empty(out_features, in_features)))
            setattr(self, f'{g}_bias', nn.Parameter(torch.empty(out_features)) if bias else None)
        self._inference_cache = ParameterCache()
        self.reset_parameters()

    def _own_weight(self, group: str) -> nn.Parameter:
        """A group's full weight, or its LoRA A (what an init draws)."""
        return getattr(self, f'{group}_lora_a' if self.ranks[group] else f'{group}_weight')

    @torch.no_grad()
    def reset_parameters(self) -> None:
        """nn.Linear's default init for every copy (LoRA: B = 0 and the bias the shared one)."""
        for w in (self.weight, *(self._own_weight(g) for g in self.groups)):
            nn.init.kaiming_uniform_(w, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features)
            for g in ('', *(f'{g}_' for g in self.groups)):
                nn.init.uniform_(getattr(self, g + 'bias'), -bound, bound)
        for g in self.groups:
            if self.ranks[g]:
                self.init_group_from_shared(g)

    @torch.no_grad()
    def init_weights(self, std: float = 0.02) -> None:
        """timm's ViT init for every copy: weights (LoRA: A) truncated normal, biases 0
        (LoRA: B = 0)."""
        for w in (self.weight, *(self._own_weight(g) for g in self.groups)):
            trunc_normal_(w, std=std)
        for name, param in self.named_parameters(recurse=False):
            if name == 'bias' or name.endswith(('_bias', '_lora_b')):
                nn.init.zeros_(param)

    @torch.no_grad()
    def init_group_from_shared(self, group: str = 'cls') -> None:
        super().init_group_from_shared(group)
        if self.ranks.get(group):
            getattr(self, f'{group}_lora_b').zero_()

    def forward(self, x: torch.Tensor, layout: Layout) -> torch.Tensor:
        rows, groups = self._rows(layout, x.shape[1])
        if not groups:
            return F.linear(x, self.weight, self.bias)
        if not (torch.is_grad_enabled() or torch.compiler.is_compiling()):
            return self._inference(x, rows, groups)
        weights = [
            (getattr(self, f'{g}_lora_a'), getattr(self, f'{g}_lora_b'))
            if self.ranks[g]
            else getattr(self, f'{g}_weight')
            for g in groups
        ]
        row_bias = self._of('bias', groups, rows)
        if isinstance(rows, int):
            if isinstance(weights[0], tuple):
                return lora_linear(x, self.weight, self.bias, *weights[0], row_bias, rows)
            weights = weights[0]
        return specialized_linear(x, self.weight, self.bias, weights, row_bias, rows)

    def _inference(self, x: torch.Tensor, rows, groups) -> torch.Tensor:
        """Without autograd: ``F.linear`` on all tokens (under autocast with autocast's cached
        weight cast), then each group's rows from its parameters formed once in the output's
        dtype and kept while the parameters stay as they are: ``<group>_weight`` (LoRA:
        ``weight + B A``, merged) and ``<group>_bias``, one GEMM written over the rows. LoRA
        with B = 0 (at init) adds only the bias difference, so its output is ``F.linear``'s
        plus that, bit for bit."""
        out = F.linear(x, self.weight, self.bias)
        for g, (start, stop) in zip(groups, row_spans(rows)):
            bias = getattr(self, f'{g}_bias')
            if self.ranks[g]:
                lora = getattr(self, f'{g}_lora_a'), getattr(self, f'{g}_lora_b')
                params = (self.weight, *lora, self.bias, bias)
            else:
                params = (getattr(self, f'{g}_weight'), bias)
            weight, bias = self._inference_cache.get(
                (g, out.dtype), params, lambda g=g: self._group_parameters(g, out.dtype)
            )
            out_rows = out.narrow(1, start, stop - start)
            if weight is None:
                if bias is not None:
                    out_rows.add_(bias)
                continue
            linear_into(out_rows, x.narrow(1, start, stop - start).to(out.dtype), weight, bias)
        return out

    @torch.no_grad()
    def _group_parameters(self, group: str, dtype: torch.dtype):
        """A group's rows' (weight, bias) in ``dtype``; for LoRA with B = 0, (None, the bias
        difference or None)."""
        own_bias = getattr(self, f'{group}_bias')
        bias = None if own_bias is None else own_bias.to(dtype)
        if not self.ranks[group]:
            return getattr(self, f'{group}_weight').to(dtype), bias
        lora_a, lora_b = getattr(self, f'{group}_lora_a'), getattr(self, f'{group}_lora_b')
        if not lora_b.is_meta and not lora_b.any():
            has_shift = bias is not None and not torch.equal(own_bias, self.bias)
            return None, (own_bias - self.bias).to(dtype) if has_shift else None
        return (self.weight + lora_b @ lora_a).to(dtype), bias

    def extra_repr(self) -> str:
        return (
            f'in_features={self.in_features}, out_features={self.out_features}, '
            f'bias={self.bias is not None}, lora_rank={self.lora_rank}, groups={self.groups}'
        )


def serving_group(part: nn.Module, group: str) -> _Specialized:
    """A specialized layer that computes what ``part`` (a LayerNorm, Linear or LayerScale,
    plain or specialized) computes, with parameters of its own for the row group ``group`` as
    well, starting as the shared ones (full copies, also where ``part``'s other groups are
    low-rank). ``part``'s parameters are the new layer's, the same objects."""
    groups = tuple(getattr(part, 'groups', ()))
    if group in groups:
        raise ValueError(f'{type(part).__name__} serves the row group {group!r} already')
    if isinstance(part, (nn.LayerNorm, SpecializedLayerNorm)):
        layer = SpecializedLayerNorm(part.normalized_shape[0], part.eps, (*groups, group))
    elif isinstance(part, (nn.Linear, SpecializedLinear)):
        ranks = {**getattr(part, 'ranks', {}), group: None}
        layer = SpecializedLinear(
            part.in_features, part.out_features, part.bias is not None, groups=ranks
        )
    elif isinstance(part, (TimmLayerScale, SpecializedLayerScale)):
        layer = SpecializedLayerScale(part.gamma.shape[0], groups=(*groups, group))
    else:
        raise TypeError(
            f'no row groups for a {type(part).__name__}: a LayerNorm, Linear or LayerScale'
        )
    shared = next(part.parameters())
    layer.to(device=shared.device, dtype=shared.dtype)
    for name, param in part.named_parameters(recurse=False):
        setattr(layer, name, param)
    layer.init_group_from_shared(group)
    return layer
