"""A linear layer followed by LayerScale, fused so that LayerScale costs no activation memory.

``gamma * linear(x)`` through autograd keeps the linear's output for the gradient of gamma: one
extra (B, N, D) tensor per residual branch, about 10 % of a ViT's activation memory. Here only
x is kept, which the linear keeps anyway, and the gradient of gamma comes from the same GEMM
that gives the weight's: with G = dy^T x, dW = gamma * G and
d gamma = sum_i dy_i * (W x_i + b) = rowsum(G * W) + b * sum_i dy_i.
The output is timm's ``LayerScale(Linear(x))`` bit for bit (the scale is applied after the GEMM,
in place; under autocast, on a float32 copy, as timm's product promotes to gamma's dtype, and
the backward is autograd's for the unfused layer with h recomputed). A specialized LayerScale
scales the first ``num_cls`` tokens by ``cls_gamma``; its backward adds work on those rows
only. The LayerScale modules call this from their ``scale_linear`` (see `layer_scale`).
"""

from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd.function import once_differentiable


class _LayerScaledLinear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, gamma, cls_gamma, num_cls):
        out = F.linear(x, weight, bias)
        ctx.gemm_dtype = out.dtype
        # under autocast the GEMM runs in half precision and timm's ``h * gamma`` promotes to
        # gamma's float32: so does this product (no fp16 underflow for a gamma of 1e-6)
        out = out.to(torch.promote_types(out.dtype, gamma.dtype))  # result_type breaks dynamo
        if num_cls:
            out[:, :num_cls].mul_(cls_gamma)
            out[:, num_cls:].mul_(gamma)
        else:
            out.mul_(gamma)
        ctx.save_for_backward(x, weight, bias, gamma, cls_gamma)
        ctx.num_cls = num_cls
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, weight, bias, gamma, cls_gamma = ctx.saved_tensors
        n = ctx.num_cls
        if ctx.gemm_dtype != dy.dtype:
            with torch.autocast(dy.device.type, enabled=False):
                return _half_gemm_backward(dy, x, weight, bias, gamma, cls_gamma, n, ctx.gemm_dtype)
        w, xs = weight.to(dy.dtype), x.to(dy.dtype)
        dh = dy * gamma.to(dy.dtype)
        if n:
            dh[:, :n] = dy[:, :n] * cls_gamma.to(dy.dtype)
        dx = (dh @ w).to(x.dtype)
        dy_all, x_all = dy.flatten(0, -2), xs.flatten(0, -2)
        g = (dy_all.T @ x_all).to(weight.dtype)  # G = dy^T x, in float32 or better
        s = dy_all.sum(0).to(weight.dtype)
        dgamma = (g * weight).sum(1) + (0 if bias is None else bias * s)
        dw, db = gamma[:, None] * g, gamma * s
        dcls_gamma = None
        if n:
            # the CLS rows carry cls_gamma instead of gamma: dW gets a rank-(B n) correction, and
            # their share of d gamma, recomputed from h_cls = W x_cls + b, goes to d cls_gamma
            dy_cls = dy[:, :n].flatten(0, -2).to(weight.dtype)
            x_cls = x[:, :n].flatten(0, -2).to(weight.dtype)
            dcls_gamma = (dy_cls * F.linear(x_cls, weight, bias)).sum(0)
            delta = cls_gamma - gamma
            dw.addmm_((dy_cls * delta).T, x_cls)
            db = db + delta * dy_cls.sum(0)
            dgamma = dgamma - dcls_gamma
        return dx, dw, None if bias is None else db, dgamma, dcls_gamma, None


def _half_gemm_backward(dy, x, weight, bias, gamma, cls_gamma, n, gemm_dtype):
    """The unfused layer's backward under autocast, h recomputed instead of kept.

    G = dy^T x is gamma^-1 times the weight gradient: with gamma = 1e-5 and a loss scale of
    2^16 it overflows float16 where gamma * G does not, so the float32 route above is taken in
    float32 only. Here, as autograd does for ``linear(x) * gamma``: dh = dy * gamma rounded
    to the GEMM dtype gives dx, dW, db, and d gamma = sum_i dy_i * h_i in float32, with
    h = W x + b recomputed in the GEMM dtype (one GEMM, the price of not keeping h).
    """
    dh = dy * gamma
    if n:
        dh[:, :n] = dy[:, :n] * cls_gamma
    dh = dh.to(gemm_dtype)
    w, xs = weight.to(gemm_dtype), x.to(gemm_dtype)
    b = None if bias is None else bias.to(gemm_dtype)
    dx = (dh @ w).to(x.dtype)
    dh_all, x_all = dh.flatten(0, -2), xs.flatten(0, -2)
    dw = (dh_all.T @ x_all).to(weight.dtype)
    db = None if bias is None else dh_all.sum(0).to(bias.dtype)
    dy_h = dy * F.linear(xs, w, b)
    dgamma = dy_h[:, n:].flatten(0, -2).sum(0).to(gamma.dtype)
    dcls_gamma = dy_h[:, :n].flatten(0, -2).sum(0).to(cls_gamma.dtype) if n else None
    return dx, dw, db, dgamma, dcls_gamma, None


def layer_scaled_linear(
    x: torch.Tensor,
    linear: nn.Linear,
    gamma: torch.Tensor,
    cls_gamma: Optional[torch.Tensor] = None,
    num_cls: int = 0,
) -> torch.Tensor:
    """``linear(x) * gamma`` for tokens (B, N, in); with ``cls_gamma``, the first ``num_cls``
    tokens are scaled by it instead (a specialized LayerScale)."""
    if cls_gamma is None:
        num_cls = 0
    return _LayerScaledLinear.apply(x, linear.weight, linear.bias, gamma, cls_gamma, num_cls)
