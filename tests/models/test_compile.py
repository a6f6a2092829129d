"""SpecViT under torch.compile: every technique traces into one graph, and compiled equals eager.

Per technique, ``fullgraph=True`` makes dynamo raise at the first graph break (the check
``torch._dynamo.explain(model)(x).graph_break_count == 0`` makes, without a second trace), and
the 'aot_eager' backend runs AOTAutograd over forward and backward, custom autograd Functions
included, without generating code: outputs and all gradients must equal eager's. One model
with the custom Functions combined goes through inductor, the default backend, for the
generated kernels' numerics.
"""

import pytest
import torch
import torch._dynamo
from torch._inductor import metrics

from vitspec.models import SpecViT

pytestmark = pytest.mark.slow

TOY = dict(img_size=32, patch_size=8, embed_dims=64, num_layers=2, num_heads=2, out_indices=(0, 1))
TECHNIQUES = {
    'plain': dict(),
    'layer_scale': dict(layer_scale_init=1e-5),
    # block 0 with the CLS copy of qkv (the custom linear), block 1 without
    'specialized': dict(layer_scale_init=1e-5, specialize=dict(qkv_blocks=1)),
    'lora': dict(layer_scale_init=1e-5, specialize=dict(qkv_blocks=1, lora_rank=4)),
    'layerwise_scaling': dict(
        layerwise_scaling=dict(alpha=(0.5, 1.0), beta=(0.5, 4.0), head_dim=16, ffn_divisor=16)
    ),
    'token_graying_dct': dict(token_graying=dict(mode='dct', eps=0.7)),
    'token_graying_svd': dict(token_graying=dict(mode='svd', eps=0.7)),
    'registers': dict(num_register_tokens=4),
    # a 4x4 grid in windows of 3: padded windows with masked keys; block 1 global
    'windowed': dict(window_size=3, global_attn_indexes=(1,)),
    'class_attention': dict(num_class_attn_layers=2, pos_embed_cls=False),
}
COMBINED = dict(
    layer_scale_init=1e-5,
    specialize=dict(qkv_blocks=1),
    num_register_tokens=2,
    token_graying=dict(mode='dct', eps=0.7),
    window_size=3,
    global_attn_indexes=(1,),
)


def build(**kw):
    torch.manual_seed(0)
    model = SpecViT(**TOY, **kw).train()
    with torch.no_grad():  # away from the init (zero biases, equal gammas) so errors show
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    return model


def outputs_and_grads(model, fn, x):
    """``fn(x)``'s outputs and the gradients of a weighted sum of them (all parameters)."""
    model.zero_grad(set_to_none=True)
    outs = fn(x)
    loss = sum((o * torch.linspace(-1, 1, o.numel()).view_as(o)).sum() for o in outs)
    loss.backward()
    grads = {n: p.grad for n, p in model.named_parameters() if p.grad is not None}
    return [o.detach() for o in outs], grads


def assert_compiled_equals_eager(model, compiled, x, tol):
    eager_outs, eager_grads = outputs_and_grads(model, model, x)
    outs, grads = outputs_and_grads(model, compiled, x)
    assert len(eager_outs) == len(outs)
    for a, b in zip(outs, eager_outs):
        torch.testing.assert_close(a, b, atol=tol, rtol=tol)
    assert grads.keys() == eager_grads.keys()
    for name, grad in grads.items():
        torch.testing.assert_close(grad, eager_grads[name], atol=tol, rtol=tol, msg=name)


@pytest.mark.parametrize('technique', list(TECHNIQUES))
def test_each_technique_compiles_into_one_graph_that_equals_eager(technique):
    torch._dynamo.reset()
    model = build(**TECHNIQUES[technique])
    compiled = torch.compile(model, backend='aot_eager', fullgraph=True)
    assert_compiled_equals_eager(model, compiled, torch.randn(2, 3, 32, 32), tol=1e-5)


def test_class_attention_readout_compiles_into_one_graph():
    """The CaiT CLS read-out (forward_cls), which the dense forward does not run."""
    torch._dynamo.reset()
    model = build(**TECHNIQUES['class_attention'])
    patches = torch.randn(2, 16, 64)
    explained = torch._dynamo.explain(model.forward_cls)(patches)
    assert (explained.graph_count, explained.graph_break_count) == (1, 0)
    compiled = torch.compile(model.forward_cls, backend='aot_eager', fullgraph=True)
    torch.testing.assert_close(compiled(patches), model.forward_cls(patches))


def test_explain_counts_no_graph_break_in_a_combined_model():
    torch._dynamo.reset()
    explained = torch._dynamo.explain(build(**COMBINED))(torch.randn(2, 3, 32, 32))
    assert explained.graph_break_count == 0, [b.reason for b in explained.break_reasons]
    assert explained.graph_count == 1


def test_inductor_matches_eager_forward_and_gradients():
    """Generated kernels for LayerScale, the specialized norm / linear / LayerScale, registers,
    Token Graying's DCT and padded windows; fp32 reductions may be reordered, hence 1e-4."""
    torch._dynamo.reset()
    model = build(**COMBINED)
    compiled = torch.compile(model, fullgraph=True)
    assert_compiled_equals_eager(model, compiled, torch.randn(2, 3, 32, 32), tol=1e-4)


def test_training_on_varying_input_sizes_compiles_with_timm_resampling():
    """Dynamic shapes (a second input size): the position embedding is resampled to a symbolic
    grid, whose antialiased bicubic backward torch cannot trace; it is compiled as a product
    with resize matrices instead, equal to timm's resampling in eager."""
    torch._dynamo.reset()
    model = build(pos_embed_interp='timm')
    compiled = torch.compile(model, backend='aot_eager', fullgraph=True, dynamic=True)
    for size in ((32, 40), (40, 48)):
        assert_compiled_equals_eager(model, compiled, torch.randn(2, 3, *size), tol=1e-5)


def generated_kernels(model, x, training):
    """The kernels inductor generates for one forward (and backward) of ``model`` on ``x``."""
    torch._dynamo.reset()
    metrics.reset()
    compiled = torch.compile(model.train(training), fullgraph=True)
    with torch.set_grad_enabled(training):
        outs = compiled(x)
    if training:
        sum(o.sum() for o in outs).backward()
    return metrics.generated_kernel_count


@pytest.mark.parametrize('training, bound', [(False, 1.10), (True, 1.25)])
def test_compiled_specialization_generates_about_the_layer_scale_vits_kernels(training, bound):
    """Compiled, a specialized layer's per-token rows are computed inside the kernels that read
    them: the issue's bounds on eager kernels (1.10x in inference, 1.25x in training) hold for
    the generated ones. Built as a ``cat`` of the CLS and shared rows, each row table was a
    kernel of its own: ViT-S/16 inference 336 kernels against 216 (1.56x), training 1.45x."""
    x = torch.randn(2, 3, 32, 32)
    counts = {
        name: generated_kernels(build(**TECHNIQUES[name]), x, training)
        for name in ('layer_scale', 'specialized', 'lora')
    }
    print(counts)
    assert counts['layer_scale'] > 0
    assert counts['specialized'] <= bound * counts['layer_scale'], counts
    assert counts['lora'] <= bound * counts['layer_scale'], counts
