"""The custom autograd Functions of vitspec.layers written with plain PyTorch ops (autograd's
own backward), and how closely a result under autocast must follow them."""

import torch
import torch.nn.functional as F

AUTOCAST_DTYPES = (torch.bfloat16, torch.float16)
# Largest |a - b| allowed, relative to max |b|: a few units of the dtype's rounding (bf16 has
# 8 significant bits, 2^-8 = 4e-3; fp16 11, 2^-11 = 5e-4).
RTOL = {torch.bfloat16: 1.6e-2, torch.float16: 2e-3, torch.float32: 1e-5}


def layer_scale(h, gamma, cls_gamma=None, num_cls=0):
    """timm's ``LayerScale``; the first ``num_cls`` tokens by ``cls_gamma``."""
    out = h * gamma
    if cls_gamma is not None and num_cls:
        out = torch.cat([h[:, :num_cls] * cls_gamma, out[:, num_cls:]], 1)
    return out


def specialized_scale_add(residual, x, gamma, cls_gamma, num_cls):
    return residual + layer_scale(x, gamma, cls_gamma, num_cls)


def specialized_layer_norm(x, weight, bias, cls_weight, cls_bias, eps, num_cls):
    shape = weight.shape
    cls = F.layer_norm(x[:, :num_cls], shape, cls_weight, cls_bias, eps)
    return torch.cat([cls, F.layer_norm(x[:, num_cls:], shape, weight, bias, eps)], 1)


def specialized_linear(x, weight, bias, cls_weight, cls_bias, num_cls):
    cls = F.linear(x[:, :num_cls], cls_weight, cls_bias)
    return torch.cat([cls, F.linear(x[:, num_cls:], weight, bias)], 1)


def lora_linear(x, weight, bias, lora_a, lora_b, cls_bias, num_cls):
    cls = F.linear(x[:, :num_cls], weight, cls_bias) + F.linear(
        F.linear(x[:, :num_cls], lora_a), lora_b
    )
    return torch.cat([cls, F.linear(x[:, num_cls:], weight, bias)], 1)


def assert_close_to_scale(actual, expected, dtype, what=''):
    """Same dtype, finite, and max |actual - expected| <= RTOL[dtype] * max |expected|."""
    assert actual.dtype == expected.dtype, (what, actual.dtype, expected.dtype)
    assert torch.isfinite(actual).all(), what
    scale = expected.double().abs().max()
    error = (actual.double() - expected.double()).abs().max()
    assert error <= RTOL[dtype] * scale, f'{what}: error {error:.3g}, scale {scale:.3g}'
