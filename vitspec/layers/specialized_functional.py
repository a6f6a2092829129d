"""Functional forms of SpecializedLayerNorm, SpecializedLinear (full and LoRA) and of
SpecializedLayerScale's skip connection, with own backwards.

Forward: the op on all tokens, its first ``num_cls`` rows then changed by the CLS-parameter op
on those rows. Through autograd, that in-place write makes the backward copy the whole incoming
gradient once per layer. Here the all-token backward runs on the gradient as it is and the CLS
rows' share is handled apart, so the extra work is on the CLS rows only. The norm and the full
linear overwrite the CLS rows and take their share back out of the shared weights' gradients
(sums over rows: ``d shared = d(all rows) - d(CLS rows)``); gradients that are plain sums over
rows (a LayerScale's, the linear's biases in both forms) are summed over the CLS rows and over
the others in one product (`cls_and_shared_sums`). The LoRA linear adds ``x_cls (B A)^T +
(b_cls - b)`` to the CLS rows instead: the shared weight acts on every row, and with B = 0 the
output is ``F.linear``'s bit for bit.
"""

import contextlib

import torch
import torch.nn.functional as F
from torch.autograd.function import once_differentiable

from vitspec.layers.eager_cache import EagerCache

_layer_norm_backward = torch.ops.aten.native_layer_norm_backward


class _SpecializedLayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, cls_weight, cls_bias, eps, num_cls):
        shape = weight.shape
        out, mean, rstd = torch.native_layer_norm(x, shape, weight, bias, eps)
        cls, cls_mean, cls_rstd = torch.native_layer_norm(
            x.narrow(1, 0, num_cls), shape, cls_weight, cls_bias, eps
        )
        out.narrow(1, 0, num_cls).copy_(cls)
        # the CLS rows' own statistics (contiguous, B x num_cls), not a slice of the whole ones
        ctx.save_for_backward(x, mean, rstd, cls_mean, cls_rstd, weight, bias, cls_weight, cls_bias)
        ctx.num_cls = num_cls
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, mean, rstd, cls_mean, cls_rstd, weight, bias, cls_weight, cls_bias = ctx.saved_tensors
        n, shape, mask = ctx.num_cls, weight.shape, [True, True, True]
        dx, dw, db = _layer_norm_backward(dy, x, shape, mean, rstd, weight, bias, mask)
        dx_cls, dw_cls, db_cls = _layer_norm_backward(
            dy.narrow(1, 0, n),
            x.narrow(1, 0, n),
            shape,
            cls_mean,
            cls_rstd,
            cls_weight,
            cls_bias,
            mask,
        )
        dx.narrow(1, 0, n).copy_(dx_cls)
        torch._foreach_sub_([dw, db], [dw_cls, db_cls])  # one kernel on a GPU for both
        return dx, dw, db, dw_cls, db_cls, None, None


class _SpecializedLinear(torch.autograd.Function):
    """``F.linear(x, weight, bias)`` on all tokens; on the first ``num_cls``, ``F.linear(x_cls,
    cls_weight, cls_bias)`` instead (full form), or with ``(x_cls A^T) B^T + cls_bias`` added
    to it (LoRA: the CLS weight is ``weight + B A``, its bias ``cls_bias``). Under
    autocast the inputs are cast once, here, and the cast copies are what backward reads."""

    @staticmethod
    def forward(ctx, x, weight, bias, cls_weight, lora_a, lora_b, cls_bias, num_cls):
        ctx.dtypes = [t.dtype if t is not None else None for t in (x, weight, lora_a)]
        if lora_a is not None and bias is not None:
            cls_bias = cls_bias - bias  # added to rows that hold ``bias`` already
        device = x.device.type
        autocast = torch.amp.is_autocast_available(device) and torch.is_autocast_enabled(device)
        if autocast:
            dtype = torch.get_autocast_dtype(device)
            x, weight, bias, cls_weight, lora_a, lora_b, cls_bias = (
                None if t is None else t.to(dtype)
                for t in (x, weight, bias, cls_weight, lora_a, lora_b, cls_bias)
            )
        with torch.autocast(device, enabled=False) if autocast else contextlib.nullcontext():
            out = F.linear(x, weight, bias)
            x_cls, rows = x.narrow(1, 0, num_cls), out.narrow(1, 0, num_cls)
            h_cls = None  # LoRA: x_cls A^T, (B, n, r), kept for B's gradient
            if lora_a is None:
                linear_into(rows, x_cls, cls_weight, cls_bias)
            else:
                h_cls = F.linear(x_cls, lora_a)
                rows.add_(F.linear(h_cls, lora_b, cls_bias))
        ctx.save_for_backward(x, weight, cls_weight, lora_a, lora_b, h_cls)
        ctx.num_cls, ctx.has_bias = num_cls, bias is not None
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, weight, cls_weight, lora_a, lora_b, h_cls = ctx.saved_tensors
        n, (x_dtype, w_dtype, lora_dtype) = ctx.num_cls, ctx.dtypes
        dy = dy.to(x.dtype)
        dx = dy @ weight
        dy_cls, x_cls = dy.narrow(1, 0, n).flatten(0, -2), x.narrow(1, 0, n).flatten(0, -2)
        rows = dx.narrow(1, 0, n)
        dy_all, x_all = dy.flatten(0, -2), x.flatten(0, -2)
        dw, db, dcls_bias = dy_all.T @ x_all, None, None
        dcls_weight = da = dbb = None
        if ctx.has_bias:  # the shared bias reaches the other rows only, cls_bias the CLS rows
            dcls_bias, db = cls_and_shared_sums(dy, n)
        if lora_a is None:
            linear_into(rows, dy.narrow(1, 0, n), cls_weight.T)
            dcls_weight = dy_cls.T @ x_cls
            dw.sub_(dcls_weight)  # the shared weight did not act on the CLS rows
        else:
            dh = dy_cls @ lora_b  # (B n, r)
            rows.add_((dh @ lora_a).view_as(rows))
            da, dbb = dh.T @ x_cls, dy_cls.T @ h_cls.flatten(0, -2)
        grads = [(g, w_dtype) for g in (dw, db, dcls_weight)]
        grads += [(g, lora_dtype) for g in (da, dbb)] + [(dcls_bias, w_dtype)]
        grads = [None if g is None else g.to(dtype) for g, dtype in grads]
        return (dx.to(x_dtype), *grads, None)


class _SpecializedScaleAdd(torch.autograd.Function):
    """``residual + x * gamma`` on all tokens, ``cls_gamma`` on the first ``num_cls``: one
    ``addcmul`` over all rows and one written over the CLS rows, as many kernels as timm's
    LayerScale and skip connection (a product and a sum), and no (tokens, dim) scale."""

    @staticmethod
    def forward(ctx, residual, x, gamma, cls_gamma, num_cls):
        out = _scale_add(residual, x, gamma, cls_gamma, num_cls)
        ctx.save_for_backward(x, gamma, cls_gamma)
        ctx.num_cls = num_cls
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, gamma, cls_gamma = ctx.saved_tensors
        n = ctx.num_cls
        dx = torch.mul(dy, gamma)
        _into(dx.narrow(1, 0, n), torch.mul, dy.narrow(1, 0, n), cls_gamma)
        d_cls, d_shared = cls_and_shared_sums(torch.mul(dy, x), n)
        return dy, dx.to(x.dtype), d_shared.to(gamma.dtype), d_cls.to(cls_gamma.dtype), None


def cls_and_shared_sums(t, num_cls):
    """The sums of tokens ``t`` (B, N, D) over their first ``num_cls`` rows and over the rest,
    two (D,) vectors: one product with a (2, B N) 0/1 token indicator, one kernel where two
    reductions would be two."""
    batch, tokens = t.shape[:2]
    indicator = _token_indicator(t, batch, tokens, num_cls, t.dtype, t.device)
    return torch.mm(indicator, t.reshape(batch * tokens, -1)).unbind(0)


def _build_token_indicator(batch, tokens, num_cls, dtype, device):
    """(2, batch * tokens): row 0 marks the CLS tokens of every sample, row 1 the others."""
    is_cls = cls_token_mask(tokens, num_cls, device)
    rows = torch.stack([is_cls, ~is_cls]).to(dtype)
    return rows.repeat(1, batch)


_token_indicator = EagerCache(_build_token_indicator, maxsize=16)


def cls_token_mask(num_tokens, num_cls, device):
    """(num_tokens,) bool: True on the first ``num_cls`` tokens."""
    return torch.arange(num_tokens, device=device) < num_cls


def _scale_add(residual, x, gamma, cls_gamma, num_cls):
    out = torch.addcmul(residual, x, gamma)
    rows = out.narrow(1, 0, num_cls)
    _into(rows, torch.addcmul, residual.narrow(1, 0, num_cls), x.narrow(1, 0, num_cls), cls_gamma)
    return out


def _layer_norm(x, weight, bias, cls_weight, cls_bias, eps, num_cls):
    out = F.layer_norm(x, weight.shape, weight, bias, eps)
    cls = F.layer_norm(x.narrow(1, 0, num_cls), weight.shape, cls_weight, cls_bias, eps)
    out.narrow(1, 0, num_cls).copy_(cls)
    return out


def records_grad(*tensors) -> bool:
    """Whether autograd records this call; where it does not (inference, a frozen backbone) the
    ops run without an autograd Function, whose call costs more than its small CLS-row ops."""
    return torch.is_grad_enabled() and any(t.requires_grad for t in tensors)


def specialized_scale_add(residual, x, gamma, cls_gamma, num_cls):
    """``residual + x * scale`` for tokens (B, N, D), the scale ``cls_gamma`` on the first
    `num_cls` tokens and ``gamma`` on the rest (a skip connection after a LayerScale)."""
    if not records_grad(residual, x, gamma, cls_gamma):
        return _scale_add(residual, x, gamma, cls_gamma, num_cls)
    return _SpecializedScaleAdd.apply(residual, x, gamma, cls_gamma, num_cls)


def token_rows(shared, cls, num_cls, num_tokens):
    """(num_tokens, D) rows of a per-token parameter: ``cls`` on the first ``num_cls``,
    ``shared`` on the rest. Eager, one ``cat``; compiled, a ``where`` on the token index, which
    inductor computes inside the kernels that read the rows (a ``cat`` stays a kernel of its
    own: ViT-S/16 inference compiled to 336 kernels with it, 192 with the ``where``)."""
    if torch.compiler.is_compiling():
        is_cls = cls_token_mask(num_tokens, num_cls, shared.device).unsqueeze(-1)
        return torch.where(is_cls, cls, shared)
    d = shared.shape[-1]
    return torch.cat([cls.expand(num_cls, d), shared.expand(num_tokens - num_cls, d)])


def linear_into(out, x, weight, bias=None, accumulate=False):
    """``out[...] = F.linear(x, weight, bias)`` (``accumulate``: ``+=``) for token rows ``out``
    (B, n, out_features) of a larger output. For one row a sample (one CLS token) the rows form
    a strided matrix that the GEMM writes in place; else the product goes through a copy."""
    if out.shape[1] != 1:
        product = F.linear(x, weight, bias)
        return out.add_(product) if accumulate else out.copy_(product)
    out, x = out.squeeze(1), x.squeeze(1)
    if accumulate:
        out.addmm_(x, weight.T)
        return out if bias is None else out.add_(bias)
    if bias is None:
        return _into(out, torch.mm, x, weight.T)
    return _into(out, torch.addmm, bias, x, weight.T)


def _into(out, op, *args):
    """``op(*args, out=out)`` for ``out`` a view of a larger tensor: one kernel writing in place.
    Dynamo traces no ``out=`` into a view; compiled, the result is copied in (inductor fuses)."""
    if torch.compiler.is_compiling():
        return out.copy_(op(*args))
    return op(*args, out=out)


def specialized_layer_norm(x, weight, bias, cls_weight, cls_bias, eps, num_cls):
    """LayerNorm over the last dim of tokens (B, N, D), the first `num_cls` with the cls_ affine."""
    if not records_grad(x, weight, bias, cls_weight, cls_bias):
        return _layer_norm(x, weight, bias, cls_weight, cls_bias, eps, num_cls)
    return _SpecializedLayerNorm.apply(x, weight, bias, cls_weight, cls_bias, eps, num_cls)


def specialized_linear(x, weight, bias, cls_weight, cls_bias, num_cls):
    """``F.linear`` of tokens (B, N, in), the first `num_cls` with ``cls_weight``, ``cls_bias``."""
    return _SpecializedLinear.apply(x, weight, bias, cls_weight, None, None, cls_bias, num_cls)


def lora_linear(x, weight, bias, lora_a, lora_b, cls_bias, num_cls):
    """``F.linear`` of tokens (B, N, in), the first `num_cls` with the weight ``weight + lora_b
    @ lora_a`` and ``cls_bias``, through the rank-r factors (never an (out, in) product)."""
    return _SpecializedLinear.apply(x, weight, bias, None, lora_a, lora_b, cls_bias, num_cls)
