"""Functional forms of SpecializedLayerNorm and SpecializedLinear (full and LoRA), with own
backwards.

Forward: the op on all tokens, its first ``num_cls`` rows then changed by the CLS-parameter op
on those rows. Through autograd, that in-place write makes the backward copy the whole incoming
gradient once per layer. Here the all-token backward runs on the gradient as it is and the CLS
rows' share is handled apart, so the extra work is on the CLS rows only. The norm and the full
linear overwrite the CLS rows and take their share back out of the shared parameters' gradients
(sums over rows: ``d shared = d(all rows) - d(CLS rows)``). The LoRA linear adds ``x_cls (B
A)^T + (b_cls - b)`` to the CLS rows instead: the shared weight acts on every row, and with B = 0
the output is ``F.linear``'s bit for bit.
"""

import contextlib

import torch
import torch.nn.functional as F
from torch.autograd.function import once_differentiable

_layer_norm_backward = torch.ops.aten.native_layer_norm_backward


class _SpecializedLayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, cls_weight, cls_bias, eps, num_cls):
        shape = weight.shape
        out, mean, rstd = torch.native_layer_norm(x, shape, weight, bias, eps)
        cls = torch.native_layer_norm(x.narrow(1, 0, num_cls), shape, cls_weight, cls_bias, eps)
        out.narrow(1, 0, num_cls).copy_(cls[0])
        ctx.save_for_backward(x, mean, rstd, weight, bias, cls_weight, cls_bias)
        ctx.num_cls = num_cls
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, mean, rstd, weight, bias, cls_weight, cls_bias = ctx.saved_tensors
        n, shape, mask = ctx.num_cls, weight.shape, [True, True, True]
        dx, dw, db = _layer_norm_backward(dy, x, shape, mean, rstd, weight, bias, mask)
        mean, rstd = mean.narrow(1, 0, n), rstd.narrow(1, 0, n)
        if x.device.type == 'cpu':  # its kernel reads mean and rstd as if contiguous (torch 2.14)
            mean, rstd = mean.contiguous(), rstd.contiguous()
        dx_cls, dw_cls, db_cls = _layer_norm_backward(
            dy.narrow(1, 0, n), x.narrow(1, 0, n), shape, mean, rstd, cls_weight, cls_bias, mask
        )
        dx.narrow(1, 0, n).copy_(dx_cls)
        return dx, dw - dw_cls, db - db_cls, dw_cls, db_cls, None, None


class _SpecializedLinear(torch.autograd.Function):
    """``F.linear(x, weight, bias)`` on all tokens; on the first ``num_cls``, ``F.linear(x_cls,
    cls_weight, cls_bias)`` instead, or with ``delta`` added to it (the CLS weight is then
    ``weight + cls_weight``). Under autocast the inputs are cast once, here, and the cast copies
    are what backward reads: no second cast of x."""

    @staticmethod
    def forward(ctx, x, weight, bias, cls_weight, cls_bias, num_cls, delta):
        ctx.dtypes = x.dtype, weight.dtype
        device = x.device.type
        autocast = torch.amp.is_autocast_available(device) and torch.is_autocast_enabled(device)
        if autocast:
            dtype = torch.get_autocast_dtype(device)
            x, weight, cls_weight = x.to(dtype), weight.to(dtype), cls_weight.to(dtype)
            bias = None if bias is None else bias.to(dtype)
            cls_bias = None if cls_bias is None else cls_bias.to(dtype)
        with torch.autocast(device, enabled=False) if autocast else contextlib.nullcontext():
            out = F.linear(x, weight, bias)
            cls = F.linear(x.narrow(1, 0, num_cls), cls_weight, cls_bias)
        rows = out.narrow(1, 0, num_cls)
        rows.add_(cls) if delta else rows.copy_(cls)
        ctx.save_for_backward(x, weight, cls_weight)
        ctx.num_cls, ctx.delta, ctx.has_bias = num_cls, delta, bias is not None
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, weight, cls_weight = ctx.saved_tensors
        n, (x_dtype, w_dtype) = ctx.num_cls, ctx.dtypes
        dy = dy.to(x.dtype)
        dy_cls, x_cls = dy.narrow(1, 0, n), x.narrow(1, 0, n)
        dx = dy @ weight
        rows, dx_cls = dx.narrow(1, 0, n), dy_cls @ cls_weight
        rows.add_(dx_cls) if ctx.delta else rows.copy_(dx_cls)
        dy_all, x_all = dy.flatten(0, -2), x.flatten(0, -2)
        dy_cls, x_cls = dy_cls.flatten(0, -2), x_cls.flatten(0, -2)
        grads = [dy_all.T @ x_all, None, dy_cls.T @ x_cls, None]
        if ctx.has_bias:
            grads[1], grads[3] = dy_all.sum(0), dy_cls.sum(0)
        if not ctx.delta:  # the shared parameters did not act on the CLS rows
            grads[0].sub_(grads[2])
            if ctx.has_bias:
                grads[1].sub_(grads[3])
        grads = (None if g is None else g.to(w_dtype) for g in grads)
        return (dx.to(x_dtype), *grads, None, None)


def specialized_layer_norm(x, weight, bias, cls_weight, cls_bias, eps, num_cls):
    """LayerNorm over the last dim of tokens (B, N, D), the first `num_cls` with the cls_ affine."""
    return _SpecializedLayerNorm.apply(x, weight, bias, cls_weight, cls_bias, eps, num_cls)


def specialized_linear(x, weight, bias, cls_weight, cls_bias, num_cls):
    """``F.linear`` of tokens (B, N, in), the first `num_cls` with ``cls_weight``, ``cls_bias``."""
    return _SpecializedLinear.apply(x, weight, bias, cls_weight, cls_bias, num_cls, False)


def lora_linear(x, weight, bias, lora_a, lora_b, cls_bias, num_cls):
    """``F.linear`` of tokens (B, N, in), the first `num_cls` with the weight ``weight + lora_b
    @ lora_a`` and ``cls_bias``; the rank-r product is formed once, a (out, in) matrix."""
    dbias = None if bias is None else cls_bias - bias
    return _SpecializedLinear.apply(x, weight, bias, lora_b @ lora_a, dbias, num_cls, True)
