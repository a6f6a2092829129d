"""Every SpecViT technique at toy size, forward and backward under CPU autocast (bf16, fp16):
finite outputs and gradients, and the same output dtype, values and gradients as the same model
with the custom autograd Functions swapped for plain PyTorch ops (tests/autocast_reference.py)."""

import pytest
import torch

import tests.autocast_reference as plain
import vitspec.layers.specialized
from tests.autocast_reference import AUTOCAST_DTYPES, assert_close_to_scale
from tests.models.toy_techniques import TECHNIQUES, build

# fp16: the largest gradient here is about 70, the smallest LayerScale-branch ones 1e-5
LOSS_SCALE = {torch.bfloat16: 1.0, torch.float16: 2.0**8}
# what the model's modules call -> its plain-op form
FUNCTIONS = [
    (vitspec.layers.specialized, 'specialized_layer_norm'),
    (vitspec.layers.specialized, 'specialized_linear'),
    (vitspec.layers.specialized, 'lora_linear'),
    (vitspec.layers.specialized, 'specialized_scale_add'),
]


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
