"""Functional forms of SpecializedLayerNorm, SpecializedLinear (full and LoRA) and of
SpecializedLayerScale's skip connection, with own backwards.

Rows: the row groups with parameters of their own (`TokenLayout`'s groups: CLS, queries), given
as ``rows``: an int ``n`` for one group on the first ``n`` rows (the CLS group) with one tensor
per parameter, or ``((start, stop), ...)`` spans, disjoint and ascending, with a sequence of
tensors per parameter, one for each span.

Forward: the op on all tokens, the rows of each group then changed by the group's op on those
rows. Through autograd, that in-place write makes the backward copy the whole incoming gradient
once per layer. Here the all-token backward runs on the gradient as it is and each group's
share is handled apart, so the extra work is on the group rows only. The norm and the full
linear overwrite the group rows and take their share back out of the shared weights' gradients
(sums over rows: ``d shared = d(all rows) - d(group rows)``); gradients that are plain sums over
rows (a LayerScale's, the linear's biases in both forms) are summed over each group's rows and
over the others in one product (`cls_and_shared_sums`). The LoRA linear adds ``x_g (B A)^T +
(b_g - b)`` to the group rows instead: the shared weight acts on every row, and with B = 0 the
output is ``F.linear``'s bit for bit.
"""

import contextlib
from typing import Sequence, Tuple, Union

import torch
import torch.nn.functional as F
from torch.autograd.function import once_differentiable

from vitspec.layers.eager_cache import EagerCache

_layer_norm_backward = torch.ops.aten.native_layer_norm_backward

Rows = Union[int, Sequence[Tuple[int, int]]]


def row_spans(rows: Rows) -> Tuple[Tuple[int, int], ...]:
    """``rows`` as ``((start, stop), ...)``: an int ``n`` is the first ``n`` rows."""
    return ((0, rows),) if isinstance(rows, int) else tuple(rows)


def per_span(rows: Rows, param) -> tuple:
    """A parameter of the groups as one entry per span (an int ``rows``: ``param`` itself)."""
    return (param,) if isinstance(rows, int) else tuple(param)


def _pairs(flat):
    return [flat[i : i + 2] for i in range(0, len(flat), 2)]


class _SpecializedLayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps, spans, *row_params):
        shape = weight.shape
        out, mean, rstd = torch.native_layer_norm(x, shape, weight, bias, eps)
        stats = []
        for (start, stop), (row_weight, row_bias) in zip(spans, _pairs(row_params)):
            rows, rows_mean, rows_rstd = torch.native_layer_norm(
                x.narrow(1, start, stop - start), shape, row_weight, row_bias, eps
            )
            out.narrow(1, start, stop - start).copy_(rows)
            # the group rows' own statistics (contiguous, B x n), not a slice of the whole ones
            stats += [rows_mean, rows_rstd]
        ctx.save_for_backward(x, mean, rstd, weight, bias, *stats, *row_params)
        ctx.spans = spans
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, mean, rstd, weight, bias, *saved = ctx.saved_tensors
        shape, mask, num_groups = weight.shape, [True, True, True], len(ctx.spans)
        stats, row_params = _pairs(saved[: 2 * num_groups]), _pairs(saved[2 * num_groups :])
        dx, dw, db = _layer_norm_backward(dy, x, shape, mean, rstd, weight, bias, mask)
        grads = []
        for (start, stop), (rows_mean, rows_rstd), (row_weight, row_bias) in zip(
            ctx.spans, stats, row_params
        ):
            n = stop - start
            dx_rows, dw_rows, db_rows = _layer_norm_backward(
                dy.narrow(1, start, n),
                x.narrow(1, start, n),
                shape,
                rows_mean,
                rows_rstd,
                row_weight,
                row_bias,
                mask,
            )
            dx.narrow(1, start, n).copy_(dx_rows)
            torch._foreach_sub_([dw, db], [dw_rows, db_rows])  # one kernel on a GPU for both
            grads += [dw_rows, db_rows]
        return dx, dw, db, None, None, *grads


class _SpecializedLinear(torch.autograd.Function):
    """``F.linear(x, weight, bias)`` on all tokens; on the rows of each group, ``F.linear(x_g,
    weight_g, bias_g)`` instead (full form), or with ``(x_g A^T) B^T + bias_g`` added to it
    (LoRA: the group's weight is ``weight + B A``, its bias ``bias_g``). ``row_params``: four
    per group, (weight_g, A, B, bias_g), None where the form has none. Under autocast the inputs
    are cast once, here, and the cast copies are what backward reads."""

    @staticmethod
    def forward(ctx, x, weight, bias, spans, *row_params):
        ctx.dtypes = [None if t is None else t.dtype for t in (x, weight, bias, *row_params)]
        groups = [list(row_params[i : i + 4]) for i in range(0, len(row_params), 4)]
        for group in groups:
            if group[1] is not None and bias is not None:
                group[3] = group[3] - bias  # LoRA: added to rows that hold ``bias`` already
        device = x.device.type
        autocast = torch.amp.is_autocast_available(device) and torch.is_autocast_enabled(device)
        if autocast:
            dtype = torch.get_autocast_dtype(device)
            x, weight, bias = (None if t is None else t.to(dtype) for t in (x, weight, bias))
            groups = [[None if t is None else t.to(dtype) for t in group] for group in groups]
        kept = []
        with torch.autocast(device, enabled=False) if autocast else contextlib.nullcontext():
            out = F.linear(x, weight, bias)
            for (start, stop), (row_weight, lora_a, lora_b, row_bias) in zip(spans, groups):
                x_rows, rows = x.narrow(1, start, stop - start), out.narrow(1, start, stop - start)
                h_rows = None  # LoRA: x_g A^T, (B, n, r), kept for B's gradient
                if lora_a is None:
                    linear_into(rows, x_rows, row_weight, row_bias)
                else:
                    h_rows = F.linear(x_rows, lora_a)
                    rows.add_(F.linear(h_rows, lora_b, row_bias))
                kept += [row_weight, lora_a, lora_b, h_rows]
        ctx.save_for_backward(x, weight, *kept)
        ctx.spans, ctx.has_bias = spans, bias is not None
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, weight, *kept = ctx.saved_tensors
        x_dtype, w_dtype, b_dtype, *row_dtypes = ctx.dtypes
        dy = dy.to(x.dtype)
        dx = dy @ weight
        dy_all, x_all = dy.flatten(0, -2), x.flatten(0, -2)
        dw, db = dy_all.T @ x_all, None
        d_row_biases = [None] * len(ctx.spans)
        if ctx.has_bias:  # the shared bias reaches the other rows only, bias_g its group's
            *d_row_biases, db = cls_and_shared_sums(dy, ctx.spans)
        grads = []
        for i, (start, stop) in enumerate(ctx.spans):
            row_weight, lora_a, lora_b, h_rows = kept[4 * i : 4 * i + 4]
            n = stop - start
            dy_rows, x_rows = dy.narrow(1, start, n), x.narrow(1, start, n)
            dy_flat, x_flat, rows = (
                dy_rows.flatten(0, -2),
                x_rows.flatten(0, -2),
                dx.narrow(1, start, n),
            )
            if lora_a is None:
                linear_into(rows, dy_rows, row_weight.T)
                dw_rows = dy_flat.T @ x_flat
                dw.sub_(dw_rows)  # the shared weight did not act on the group rows
                grads += [dw_rows, None, None]
            else:
                dh = dy_flat @ lora_b  # (B n, r)
                rows.add_((dh @ lora_a).view_as(rows))
                grads += [None, dh.T @ x_flat, dy_flat.T @ h_rows.flatten(0, -2)]
            grads.append(d_row_biases[i])
        grads = [
            None if g is None else g.to(t)
            for g, t in zip([dw, db, *grads], [w_dtype, b_dtype, *row_dtypes])
        ]
        return (dx.to(x_dtype), grads[0], grads[1], None, *grads[2:])


class _SpecializedScaleAdd(torch.autograd.Function):
    """``residual + x * gamma`` on all tokens, each group's gamma on its rows: one ``addcmul``
    over all rows and one written over each group's rows, as many kernels as timm's LayerScale
    and skip connection (a product and a sum), and no (tokens, dim) scale."""

    @staticmethod
    def forward(ctx, residual, x, gamma, spans, *row_gammas):
        out = _scale_add(residual, x, gamma, spans, row_gammas)
        ctx.save_for_backward(x, gamma, *row_gammas)
        ctx.spans = spans
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, gamma, *row_gammas = ctx.saved_tensors
        dx = torch.mul(dy, gamma)
        for (start, stop), row_gamma in zip(ctx.spans, row_gammas):
            n = stop - start
            _into(dx.narrow(1, start, n), torch.mul, dy.narrow(1, start, n), row_gamma)
        *d_rows, d_shared = cls_and_shared_sums(torch.mul(dy, x), ctx.spans)
        d_rows = [d.to(g.dtype) for d, g in zip(d_rows, row_gammas)]
        return dy, dx.to(x.dtype), d_shared.to(gamma.dtype), None, *d_rows


def cls_and_shared_sums(t, rows: Rows):
    """The sums of tokens ``t`` (B, N, D) over the rows of each group (``rows``: an int n, the
    first n) and over the other rows: one (D,) vector per group, then the others'. One product
    with a (groups + 1, B N) 0/1 token indicator, one kernel where separate reductions would be
    one each."""
    batch, tokens = t.shape[:2]
    indicator = _token_indicator(t, batch, tokens, row_spans(rows), t.dtype, t.device)
    return torch.mm(indicator, t.reshape(batch * tokens, -1)).unbind(0)


def _build_token_indicator(batch, tokens, spans, dtype, device):
    """(groups + 1, batch * tokens): row g marks group g's tokens of every sample, the last row
    the others."""
    index = torch.arange(tokens, device=device)
    in_groups = [span_mask(index, start, stop) for start, stop in spans]
    others = in_groups[0]
    for mask in in_groups[1:]:
        others = others | mask
    rows = torch.stack([*in_groups, ~others]).to(dtype)
    return rows.repeat(1, batch)


_token_indicator = EagerCache(_build_token_indicator, maxsize=16)


def span_mask(index, start, stop):
    """Bool, True where ``start <= index < stop`` (``index``: token positions)."""
    return index < stop if start == 0 else (index >= start) & (index < stop)


def _scale_add(residual, x, gamma, spans, row_gammas):
    out = torch.addcmul(residual, x, gamma)
    for (start, stop), row_gamma in zip(spans, row_gammas):
        n = stop - start
        rows = out.narrow(1, start, n)
        _into(rows, torch.addcmul, residual.narrow(1, start, n), x.narrow(1, start, n), row_gamma)
    return out


def _layer_norm(x, weight, bias, eps, spans, row_params):
    out = F.layer_norm(x, weight.shape, weight, bias, eps)
    for (start, stop), (row_weight, row_bias) in zip(spans, _pairs(row_params)):
        n = stop - start
        rows = F.layer_norm(x.narrow(1, start, n), weight.shape, row_weight, row_bias, eps)
        out.narrow(1, start, n).copy_(rows)
    return out


def records_grad(*tensors) -> bool:
    """Whether autograd records this call; where it does not (inference, a frozen backbone) the
    ops run without an autograd Function, whose call costs more than its small group-row ops."""
    return torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors)


def specialized_scale_add(residual, x, gamma, row_gamma, rows: Rows):
    """``residual + x * scale`` for tokens (B, N, D), the scale ``row_gamma`` on the group rows
    ``rows`` and ``gamma`` on the rest (a skip connection after a LayerScale)."""
    spans, row_gammas = row_spans(rows), per_span(rows, row_gamma)
    if not records_grad(residual, x, gamma, *row_gammas):
        return _scale_add(residual, x, gamma, spans, row_gammas)
    return _SpecializedScaleAdd.apply(residual, x, gamma, spans, *row_gammas)


def token_rows(shared, row_param, rows: Rows, num_tokens):
    """(num_tokens, D) rows of a per-token parameter: ``row_param`` on the group rows ``rows``,
    ``shared`` on the rest. Eager, one ``cat``; compiled, a ``where`` on the token index, which
    inductor computes inside the kernels that read the rows (a ``cat`` stays a kernel of its
    own: ViT-S/16 inference compiled to 336 kernels with it, 192 with the ``where``)."""
    spans, params = row_spans(rows), per_span(rows, row_param)
    if torch.compiler.is_compiling():
        index = torch.arange(num_tokens, device=shared.device).unsqueeze(-1)
        out = shared
        for (start, stop), param in zip(spans, params):
            out = torch.where(span_mask(index, start, stop), param, out)
        return out
    d, pieces, at = shared.shape[-1], [], 0
    for (start, stop), param in zip(spans, params):
        if start > at:
            pieces.append(shared.expand(start - at, d))
        pieces.append(param.expand(stop - start, d))
        at = stop
    return torch.cat([*pieces, shared.expand(num_tokens - at, d)])


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


def specialized_layer_norm(x, weight, bias, row_weight, row_bias, eps, rows: Rows):
    """LayerNorm over the last dim of tokens (B, N, D), the group rows ``rows`` with their own
    affine ``row_weight``, ``row_bias``."""
    spans = row_spans(rows)
    row_params = [
        p for pair in zip(per_span(rows, row_weight), per_span(rows, row_bias)) for p in pair
    ]
    if not records_grad(x, weight, bias, *row_params):
        return _layer_norm(x, weight, bias, eps, spans, row_params)
    return _SpecializedLayerNorm.apply(x, weight, bias, eps, spans, *row_params)


def specialized_linear(x, weight, bias, row_weight, row_bias, rows: Rows):
    """``F.linear`` of tokens (B, N, in), the group rows ``rows`` with ``row_weight``,
    ``row_bias``. A row weight given as a pair ``(A, B)`` is the LoRA form: that group's weight
    is ``weight + B @ A``, applied through the rank-r factors (never an (out, in) product)."""
    row_params = []
    for w, b in zip(per_span(rows, row_weight), per_span(rows, row_bias)):
        row_params += [None, *w, b] if isinstance(w, tuple) else [w, None, None, b]
    return _SpecializedLinear.apply(x, weight, bias, row_spans(rows), *row_params)


def lora_linear(x, weight, bias, lora_a, lora_b, cls_bias, num_cls):
    """``F.linear`` of tokens (B, N, in), the first `num_cls` with the weight ``weight + lora_b
    @ lora_a`` and ``cls_bias``, through the rank-r factors (`specialized_linear`'s LoRA form)."""
    return specialized_linear(x, weight, bias, (lora_a, lora_b), cls_bias, num_cls)
