"""Every SpecViT technique at toy size, forward and backward under CPU autocast (bf16, fp16):
finite outputs and gradients, and the same output dtype, values and gradients as the same model
with the custom autograd Functions swapped for plain PyTorch ops (tests/autocast_reference.py)."""

import pytest
import torch

import tests.autocast_reference as plain
import vitspec.layers.layer_scale
import vitspec.layers.specialized
from tests.autocast_reference import AUTOCAST_DTYPES, assert_close_to_scale
from vitspec.models import SpecViT

TOY = dict(img_size=32, patch_size=8, embed_dims=32, num_layers=3, num_heads=2, out_indices=(0, 2))
TECHNIQUES = {
    'plain': dict(),
    'layer_scale_1e-5': dict(layer_scale_init=1e-5),
    'layer_scale_1e-6': dict(layer_scale_init=1e-6),
    'specialized': dict(layer_scale_init=1e-5, specialize=dict(qkv_blocks='all')),
    'specialized_lora': dict(specialize=dict(lora_rank=4)),
    'layerwise_scaling': dict(
        layerwise_scaling=dict(alpha=(0.5, 1.0), beta=(0.5, 4.0), head_dim=16, ffn_divisor=16)
    ),
    'token_graying_dct': dict(token_graying=dict(mode='dct', eps=0.7)),
    'token_graying_svd': dict(token_graying=dict(mode='svd', eps=0.7)),
    'registers': dict(num_register_tokens=2, specialize=dict(registers='cls')),
    'windowed_attention': dict(
        window_size=2, global_attn_indexes=(1,), rel_pos_bias='decomposed', layer_scale_init=1e-5
    ),
    'class_attention': dict(num_class_attn_layers=2, pos_embed_cls=False, layer_scale_init=1e-5),
}
# fp16: the largest gradient here is about 70, the smallest LayerScale-branch ones 1e-5
LOSS_SCALE = {torch.bfloat16: 1.0, torch.float16: 2.0**8}
# what the model's modules call -> its plain-op form
FUNCTIONS = [
    (vitspec.layers.layer_scale, 'layer_scaled_linear'),
    (vitspec.layers.specialized, 'layer_scaled_linear'),
    (vitspec.layers.specialized, 'specialized_layer_norm'),
    (vitspec.layers.specialized, 'specialized_linear'),
]


def build(technique):
    torch.manual_seed(0)
    model = SpecViT(**TOY, **TECHNIQUES[technique])
    model.init_weights()
    with torch.no_grad():  # away from init: zero LoRA factors and rel-pos tables would hide errors
        for p in model.parameters():
            if not p.abs().any():
                p.normal_(std=0.02)
    return model.train()


def forward_backward(model, x, dtype):
    """Outputs and parameter gradients; fp16's backward from a scaled loss, as the grad scaler
    runs it (unscaled, small LayerScale-branch gradients would be fp16 subnormals)."""
    model.zero_grad(set_to_none=True)
    with torch.autocast('cpu', dtype=dtype):
        outs = model(x)
    loss = sum((o.float() * torch.linspace(-1, 1, o.numel()).view_as(o)).sum() for o in outs)
    scale = LOSS_SCALE[dtype]
    (loss * scale).backward()
    grads = {
        n: None if p.grad is None else p.grad / scale
        for n, p in model.named_parameters()
        if p.requires_grad
    }
    return [o.detach() for o in outs], grads


@pytest.mark.parametrize('dtype', AUTOCAST_DTYPES, ids=['bf16', 'fp16'])
@pytest.mark.parametrize('technique', sorted(TECHNIQUES))
def test_technique_under_autocast_matches_plain_ops(technique, dtype, monkeypatch):
    model = build(technique)
    x = torch.randn(2, 3, 32, 40, generator=torch.Generator().manual_seed(1))
    outs, grads = forward_backward(model, x, dtype)
    for module, name in FUNCTIONS:
        monkeypatch.setattr(module, name, getattr(plain, name))
    ref_outs, ref_grads = forward_backward(model, x, dtype)
    for i, (out, ref) in enumerate(zip(outs, ref_outs, strict=True)):
        assert_close_to_scale(out, ref, dtype, f'output {i}')
    assert grads.keys() == ref_grads.keys()
    for name, ref in ref_grads.items():
        if ref is None:  # unused here (e.g. the CLS position slot); so in the fused model
            assert grads[name] is None, name
            continue
        assert_close_to_scale(grads[name], ref, dtype, name)
