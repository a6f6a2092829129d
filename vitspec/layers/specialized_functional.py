"""Functional forms of SpecializedLayerNorm and the full SpecializedLinear, with own backwards.

Forward: the op on all tokens, its first ``num_cls`` rows then overwritten with the CLS-parameter
op on those rows. Through autograd, that in-place overwrite makes the backward copy the whole
incoming gradient once per layer (to zero its CLS rows before the all-token op's backward). Here
the all-token backward runs on the gradient as it is and the CLS rows' share is taken back out:
the gradients of LayerNorm's affine parameters and of a linear's weight are sums over rows, so
``d shared = d(all rows) - d(CLS rows)``, and the input gradient's CLS rows are overwritten.
The extra work is on the CLS rows only.
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
        out[:, :num_cls] = torch.native_layer_norm(
            x[:, :num_cls], shape, cls_weight, cls_bias, eps
        )[0]
        ctx.save_for_backward(x, mean, rstd, weight, bias, cls_weight, cls_bias)
        ctx.num_cls = num_cls
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, mean, rstd, weight, bias, cls_weight, cls_bias = ctx.saved_tensors
        n, shape, mask = ctx.num_cls, weight.shape, [True, True, True]
        dx, dw, db = _layer_norm_backward(dy, x, shape, mean, rstd, weight, bias, mask)
        # the CPU kernel reads mean and rstd as if contiguous (torch 2.14): give it copies
        dx_cls, dw_cls, db_cls = _layer_norm_backward(
            dy[:, :n],
            x[:, :n],
            shape,
            mean[:, :n].contiguous(),
            rstd[:, :n].contiguous(),
            cls_weight,
            cls_bias,
            mask,
        )
        dx[:, :n] = dx_cls
        return dx, dw - dw_cls, db - db_cls, dw_cls, db_cls, None, None


class _SpecializedLinear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, cls_weight, cls_bias, num_cls):
        out = F.linear(x, weight, bias)
        out[:, :num_cls] = F.linear(x[:, :num_cls], cls_weight, cls_bias)
        ctx.save_for_backward(x, weight, cls_weight)
        ctx.num_cls, ctx.has_bias = num_cls, bias is not None
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, weight, cls_weight = ctx.saved_tensors
        n, dtype = ctx.num_cls, dy.dtype  # under autocast the forward GEMMs ran in dy's dtype
        dx = dy @ weight.to(dtype)
        dx[:, :n] = dy[:, :n] @ cls_weight.to(dtype)
        xs = x.to(dtype)
        dy_all, x_all = dy.flatten(0, -2), xs.flatten(0, -2)
        dy_cls, x_cls = dy[:, :n].flatten(0, -2), xs[:, :n].flatten(0, -2)
        dw_cls = dy_cls.T @ x_cls
        dw = (dy_all.T @ x_all).sub_(dw_cls)
        db = db_cls = None
        if ctx.has_bias:
            db_cls = dy_cls.sum(0)
            db = dy_all.sum(0) - db_cls
        grads = (None if g is None else g.to(weight.dtype) for g in (dw, db, dw_cls, db_cls))
        return (dx.to(x.dtype), *grads, None)


def specialized_layer_norm(x, weight, bias, cls_weight, cls_bias, eps, num_cls):
    """LayerNorm over the last dim of tokens (B, N, D), the first `num_cls` with the cls_ affine."""
    return _SpecializedLayerNorm.apply(x, weight, bias, cls_weight, cls_bias, eps, num_cls)


def specialized_linear(x, weight, bias, cls_weight, cls_bias, num_cls):
    """``F.linear`` of tokens (B, N, in), the first `num_cls` with ``cls_weight``, ``cls_bias``."""
    return _SpecializedLinear.apply(x, weight, bias, cls_weight, cls_bias, num_cls)
