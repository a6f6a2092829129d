"""Functional forms of SpecializedLayerNorm and SpecializedLinear (full and LoRA), with own
backwards.

Forward: the op on all tokens, its first ``num_cls`` rows then changed by the CLS-parameter op
on those rows. Through autograd, that in-place write makes the backward copy the whole incoming
gradient once per layer. Here the all-token backward runs on the gradient as it is and the CLS
rows' share is handled apart, so the extra work is on the CLS rows only. LayerNorm overwrites
the CLS rows and takes their share back out of the affine gradients (sums over rows: ``d shared
= d(all rows) - d(CLS rows)``). The linear adds ``x_cls dW^T + db`` to the CLS rows, where the
CLS weight is ``W + dW``: the shared weight's gradient is then the plain one over all rows, and
with equal parameters (dW = 0) the output is ``F.linear``'s bit for bit.
"""

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


class _LinearWithClsDelta(torch.autograd.Function):
    """``F.linear(x, weight, bias)`` on all tokens, plus ``F.linear(x_cls, dweight, dbias)`` on
    the first ``num_cls`` (a CLS weight is ``weight + dweight``). Under autocast the inputs are
    cast once, here, and the cast copies are what backward reads: no second cast of x."""

    @staticmethod
    def forward(ctx, x, weight, bias, dweight, dbias, num_cls):
        ctx.dtypes = x.dtype, weight.dtype
        device = x.device.type
        if torch.amp.is_autocast_available(device) and torch.is_autocast_enabled(device):
            dtype = torch.get_autocast_dtype(device)
            x, weight, dweight = x.to(dtype), weight.to(dtype), dweight.to(dtype)
            bias = None if bias is None else bias.to(dtype)
            dbias = None if dbias is None else dbias.to(dtype)
        with torch.autocast(device, enabled=False):
            out = F.linear(x, weight, bias)
            out.narrow(1, 0, num_cls).add_(F.linear(x.narrow(1, 0, num_cls), dweight, dbias))
        ctx.save_for_backward(x, weight, dweight)
        ctx.num_cls, ctx.has_bias = num_cls, bias is not None
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, weight, dweight = ctx.saved_tensors
        n, (x_dtype, w_dtype) = ctx.num_cls, ctx.dtypes
        dy = dy.to(x.dtype)
        dy_cls, x_cls = dy.narrow(1, 0, n), x.narrow(1, 0, n)
        dx = dy @ weight
        dx.narrow(1, 0, n).add_(dy_cls @ dweight)
        dy_all, x_all = dy.flatten(0, -2), x.flatten(0, -2)
        dy_cls, x_cls = dy_cls.flatten(0, -2), x_cls.flatten(0, -2)
        grads = [dy_all.T @ x_all, None, dy_cls.T @ x_cls, None]
        if ctx.has_bias:
            grads[1], grads[3] = dy_all.sum(0), dy_cls.sum(0)
        grads = (None if g is None else g.to(w_dtype) for g in grads)
        return (dx.to(x_dtype), *grads, None)


def specialized_layer_norm(x, weight, bias, cls_weight, cls_bias, eps, num_cls):
    """LayerNorm over the last dim of tokens (B, N, D), the first `num_cls` with the cls_ affine."""
    return _SpecializedLayerNorm.apply(x, weight, bias, cls_weight, cls_bias, eps, num_cls)


def specialized_linear(x, weight, bias, cls_weight, cls_bias, num_cls):
    """``F.linear`` of tokens (B, N, in), the first `num_cls` with ``cls_weight``, ``cls_bias``."""
    dbias = None if bias is None else cls_bias - bias
    return _LinearWithClsDelta.apply(x, weight, bias, cls_weight - weight, dbias, num_cls)


def lora_linear(x, weight, bias, lora_a, lora_b, cls_bias, num_cls):
    """``F.linear`` of tokens (B, N, in), the first `num_cls` with the weight ``weight + lora_b
    @ lora_a`` and ``cls_bias``; the rank-r product is formed once, a (out, in) matrix."""
    dbias = None if bias is None else cls_bias - bias
    return _LinearWithClsDelta.apply(x, weight, bias, lora_b @ lora_a, dbias, num_cls)
