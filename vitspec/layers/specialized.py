"""Token-type-specialized layers ("Revisiting [CLS] and Patch Token Interaction", 2602.08626).

Tokens are laid out ``[CLS | registers | patches]``; ``forward(x, num_cls)`` applies the CLS
parameters to the first ``num_cls`` tokens and the shared (patch) parameters to the rest. The
shared parameters keep timm's names and the CLS copies carry a ``cls_`` prefix, so a plain timm
checkpoint fills the shared copy and only ``cls_*`` keys are missing.

Each layer runs the op on all tokens and changes the first ``num_cls`` rows with the CLS path
computed on that slice: no extra FLOPs on the patch tokens and no full-size concatenation. The
norm and the linear have their own backward (`specialized_functional`), which spares autograd's
copy of the whole gradient behind an in-place write.

Without autograd (inference, a frozen backbone), a LayerScale takes a per-token (N, D) table
of its two scales, built once per token count and kept while they stay as they are: the
LayerScale and its skip connection are then one ``addcmul``, one kernel fewer than timm's
product and sum. A table holds at most ``TABLE_MAX_ELEMENTS`` (2 MB in float32; ViT-B/16 at 224
px keeps 1.2 MB a block); a longer sequence writes the CLS rows apart. The norm keeps its CLS-row
kernels: a table there makes its affine a second pass over the activation, which cost 3-4 % of
inference time on a CPU (docs/benchmarks.md). Under ``torch.compile`` both take per-token rows
of their parameters, which inductor fuses into the kernels that read them.
"""

import math
from typing import Optional

import torch
import torch.nn.functional as F
from timm.layers import trunc_normal_
from torch import nn

from .parameter_cache import ParameterCache
from .specialized_functional import (
    linear_into,
    lora_linear,
    records_grad,
    specialized_layer_norm,
    specialized_linear,
    specialized_scale_add,
    token_rows,
)

TABLE_MAX_ELEMENTS = 1 << 19

# name of a CLS-copy parameter -> the shared parameter it starts from (None: its own init)
_CLS_PARAMS = {
    'cls_weight': 'weight',
    'cls_bias': 'bias',
    'cls_gamma': 'gamma',
    'cls_lora_a': None,
    'cls_lora_b': None,
}


def is_cls_key(key: str) -> bool:
    """Whether a state-dict key names the CLS copy of a specialized layer."""
    return key.rpartition('.')[2] in _CLS_PARAMS


def shared_key(cls_key: str) -> Optional[str]:
    """State-dict key of the shared parameter a CLS copy is initialized from.

    ``'blocks.0.norm1.cls_weight'`` -> ``'blocks.0.norm1.weight'``; LoRA factors have their own
    init and map to None. Raises ValueError for a key that is not a CLS copy (see ``is_cls_key``).
    """
    prefix, dot, name = cls_key.rpartition('.')
    if name not in _CLS_PARAMS:
        raise ValueError(f'{cls_key!r} is not a CLS-copy key ({", ".join(_CLS_PARAMS)})')
    shared = _CLS_PARAMS[name]
    return None if shared is None else prefix + dot + shared


class _Specialized(nn.Module):
    @torch.no_grad()
    def init_cls_from_shared(self) -> None:
        """Copy the shared parameters into the CLS copies: the layer then acts as the plain one."""
        for name, param in self.named_parameters(recurse=False):
            shared = _CLS_PARAMS.get(name)
            if shared is not None:
                param.copy_(getattr(self, shared))


def init_cls_from_shared(module: nn.Module) -> None:
    """``init_cls_from_shared`` on every specialized layer in ``module`` (e.g. a whole backbone)."""
    for m in module.modules():
        if isinstance(m, _Specialized):
            m.init_cls_from_shared()


class SpecializedLayerNorm(_Specialized):
    """LayerNorm over the last dim with separate affine parameters for the CLS tokens."""

    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.normalized_shape = (dim,)
        self.eps = eps
        self.weight = nn.Parameter(torch.empty(dim))
        self.bias = nn.Parameter(torch.empty(dim))
        self.cls_weight = nn.Parameter(torch.empty(dim))
        self.cls_bias = nn.Parameter(torch.empty(dim))
        self.reset_parameters()

    @torch.no_grad()
    def reset_parameters(self) -> None:
        """nn.LayerNorm's init for both copies: weight 1, bias 0."""
        for weight, bias in ((self.weight, self.bias), (self.cls_weight, self.cls_bias)):
            nn.init.ones_(weight)
            nn.init.zeros_(bias)

    def forward(self, x: torch.Tensor, num_cls: int) -> torch.Tensor:
        if not num_cls:
            return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        device = x.device.type
        if torch.amp.is_autocast_available(device) and torch.is_autocast_enabled(device):
            x = x.float()  # autocast runs layer_norm in float32
        if torch.compiler.is_compiling():  # inductor fuses the per-token rows into the norm
            n = x.shape[1]
            weight = token_rows(self.weight, self.cls_weight, num_cls, n)
            bias = token_rows(self.bias, self.cls_bias, num_cls, n)
            return torch.addcmul(bias, F.layer_norm(x, self.normalized_shape, eps=self.eps), weight)
        return specialized_layer_norm(
            x, self.weight, self.bias, self.cls_weight, self.cls_bias, self.eps, num_cls
        )

    def extra_repr(self) -> str:
        return f'{self.normalized_shape[0]}, eps={self.eps}'


class SpecializedLayerScale(_Specialized):
    """timm's LayerScale (``x * gamma``) with a separate ``cls_gamma`` for the CLS tokens."""

    def __init__(self, dim: int, init_value: float = 1e-5):
        super().__init__()
        self.init_value = init_value
        self.gamma = nn.Parameter(torch.empty(dim))
        self.cls_gamma = nn.Parameter(torch.empty(dim))
        self._tables = ParameterCache()
        self.reset_parameters()

    @torch.no_grad()
    def reset_parameters(self) -> None:
        """Both copies at ``init_value``."""
        nn.init.constant_(self.gamma, self.init_value)
        nn.init.constant_(self.cls_gamma, self.init_value)

    def token_scale(self, num_tokens: int, num_cls: int) -> torch.Tensor:
        """The (num_tokens, D) scale: ``cls_gamma`` on the first ``num_cls`` rows, ``gamma``
        below; without autograd, kept while the scales stay as they are (up to
        ``TABLE_MAX_ELEMENTS``)."""

        def build():
            return token_rows(self.gamma, self.cls_gamma, num_cls, num_tokens)

        if not self._keeps_table(num_tokens):
            return build()
        return self._tables.get((num_tokens, num_cls), (self.gamma, self.cls_gamma), build)

    def _keeps_table(self, num_tokens: int) -> bool:
        return num_tokens * self.gamma.shape[0] <= TABLE_MAX_ELEMENTS

    def forward(self, x: torch.Tensor, num_cls: int) -> torch.Tensor:
        if not num_cls:
            return x * self.gamma
        return x * self.token_scale(x.shape[1], num_cls)

    def add_to(self, residual: torch.Tensor, x: torch.Tensor, num_cls: int) -> torch.Tensor:
        """``residual + self(x, num_cls)`` (a block's skip connection), in as many kernels as
        timm's LayerScale and sum; without autograd, in one."""
        if not num_cls:
            return residual + x * self.gamma
        frozen = self._keeps_table(x.shape[1]) and not records_grad(
            residual, x, self.gamma, self.cls_gamma
        )
        if frozen or torch.compiler.is_compiling():
            return torch.addcmul(residual, x, self.token_scale(x.shape[1], num_cls))
        return specialized_scale_add(residual, x, self.gamma, self.cls_gamma, num_cls)


class SpecializedLinear(_Specialized):
    """Linear layer with a separate weight for the CLS tokens: full, or low-rank (LoRA).

    Full: ``cls_weight``, ``cls_bias``. With ``lora_rank=r``: ``W_cls = weight + cls_lora_b @
    cls_lora_a`` (``cls_lora_a``: (r, in), ``cls_lora_b``: (out, r), zero-initialized) and a full
    ``cls_bias``; its CLS rows are the all-token output plus ``x_cls (B A)^T + (b_cls - b)``, so
    with equal parameters it reproduces ``F.linear`` bit for bit. The full form computes the CLS
    rows with their own (small) GEMM, which may round differently from the same rows of the
    all-token GEMM (about 1e-6 relative in fp32); the patch rows are always ``F.linear``'s.
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        lora_rank: Optional[int] = None,
    ):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.lora_rank = lora_rank
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.bias = nn.Parameter(torch.empty(out_features)) if bias else None
        if lora_rank:
            self.cls_lora_a = nn.Parameter(torch.empty(lora_rank, in_features))
            self.cls_lora_b = nn.Parameter(torch.empty(out_features, lora_rank))
        else:
            self.cls_weight = nn.Parameter(torch.empty(out_features, in_features))
        self.cls_bias = nn.Parameter(torch.empty(out_features)) if bias else None
        self._inference_cache = ParameterCache()
        self.reset_parameters()

    @torch.no_grad()
    def reset_parameters(self) -> None:
        """nn.Linear's default init for both copies (LoRA: B = 0 and cls_bias = bias)."""
        for w in (self.weight, self.cls_lora_a if self.lora_rank else self.cls_weight):
            nn.init.kaiming_uniform_(w, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features)
            nn.init.uniform_(self.bias, -bound, bound)
            nn.init.uniform_(self.cls_bias, -bound, bound)
        if self.lora_rank:
            self.init_cls_from_shared()

    @torch.no_grad()
    def init_weights(self, std: float = 0.02) -> None:
        """timm's ViT init for both copies: weights (LoRA: A) truncated normal, biases 0
        (LoRA: B = 0)."""
        trunc_normal_(self.weight, std=std)
        trunc_normal_(self.cls_lora_a if self.lora_rank else self.cls_weight, std=std)
        for zero in (self.bias, self.cls_bias, self.cls_lora_b if self.lora_rank else None):
            if zero is not None:
                nn.init.zeros_(zero)

    @torch.no_grad()
    def init_cls_from_shared(self) -> None:
        super().init_cls_from_shared()
        if self.lora_rank:
            self.cls_lora_b.zero_()

    def forward(self, x: torch.Tensor, num_cls: int) -> torch.Tensor:
        if not num_cls:
            return F.linear(x, self.weight, self.bias)
        if not (torch.is_grad_enabled() or torch.compiler.is_compiling()):
            return self._inference(x, num_cls)
        if self.lora_rank:
            return lora_linear(
                x, self.weight, self.bias, self.cls_lora_a, self.cls_lora_b, self.cls_bias, num_cls
            )
        return specialized_linear(
            x, self.weight, self.bias, self.cls_weight, self.cls_bias, num_cls
        )

    def _inference(self, x: torch.Tensor, num_cls: int) -> torch.Tensor:
        """Without autograd: ``F.linear`` on all tokens (under autocast with autocast's cached
        weight cast), then the CLS rows from CLS parameters formed once in the output's dtype
        and kept while the parameters stay as they are: ``cls_weight`` (LoRA: ``weight + B A``,
        merged) and ``cls_bias``, one GEMM written over the rows. LoRA with B = 0 (at init) adds
        only the bias difference, so its output is ``F.linear``'s plus that, bit for bit."""
        out = F.linear(x, self.weight, self.bias)
        if self.lora_rank:
            params = (self.weight, self.cls_lora_a, self.cls_lora_b, self.bias, self.cls_bias)
        else:
            params = (self.cls_weight, self.cls_bias)
        weight, bias = self._inference_cache.get(
            out.dtype, params, lambda: self._cls_parameters(out.dtype)
        )
        rows = out.narrow(1, 0, num_cls)
        if weight is None:
            if bias is not None:
                rows.add_(bias)
            return out
        linear_into(rows, x.narrow(1, 0, num_cls).to(out.dtype), weight, bias)
        return out

    @torch.no_grad()
    def _cls_parameters(self, dtype: torch.dtype):
        """The CLS rows' (weight, bias) in ``dtype``; for LoRA with B = 0, (None, the bias
        difference or None)."""
        bias = None if self.cls_bias is None else self.cls_bias.to(dtype)
        if not self.lora_rank:
            return self.cls_weight.to(dtype), bias
        if not self.cls_lora_b.is_meta and not self.cls_lora_b.any():
            has_shift = bias is not None and not torch.equal(self.cls_bias, self.bias)
            return None, (self.cls_bias - self.bias).to(dtype) if has_shift else None
        return (self.weight + self.cls_lora_b @ self.cls_lora_a).to(dtype), bias

    def extra_repr(self) -> str:
        return (
            f'in_features={self.in_features}, out_features={self.out_features}, '
            f'bias={self.bias is not None}, lora_rank={self.lora_rank}'
        )
