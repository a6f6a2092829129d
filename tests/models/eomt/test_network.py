import pytest
import torch

from tests.models.eomt.former_names import with_former_query_names
from tests.models.toy_techniques import TECHNIQUES, TOY, build
from vitspec.layers import TokenLayout
from vitspec.layers.specialized import row_group_of, shared_key
from vitspec.models import SpecViT
from vitspec.models.eomt.network import EoMTNetwork

COMPOSING = [
    t
    for t in TECHNIQUES
    if t not in ('class_attention', 'talking_heads', 'rel_pos_table', 'windowed_attention')
]
# ViTDet windows in the blocks before the queries, a global query block with its rel-pos bias
WINDOWED = dict(window_size=2, global_attn_indexes=(1, 2), rel_pos_bias='decomposed')


def is_query_key(key):
    return row_group_of(key) == 'query'


def network(technique='plain', num_blocks=1, **kw):
    backbone = build(technique) if technique != 'windowed' else toy(**WINDOWED)
    torch.manual_seed(0)
    return EoMTNetwork(backbone, num_classes=3, num_queries=4, num_blocks=num_blocks, **kw)


def toy(**kw):
    torch.manual_seed(0)
    return SpecViT(**{**TOY, **kw})


@pytest.mark.parametrize('mode', ['fp32', 'bf16'])
@pytest.mark.parametrize('technique', [*COMPOSING, 'windowed'])
def test_every_composing_technique_trains_with_query_specialization(technique, mode):
    net = network(technique, num_blocks=2, query_specialize=True).train()
    net.attn_mask_probs.fill_(0.5)
    img = torch.randn(2, 3, 32, 40)
    with torch.autocast('cpu', dtype=torch.bfloat16, enabled=mode == 'bf16'):
        masks, classes = net(img)
    assert len(masks) == len(classes) == 3
    assert all(m.shape == (2, 4, 8, 10) for m in masks)  # patch 8: one 2x upscale of 4 x 5
    assert all(c.shape == (2, 4, 4) for c in classes)
    sum(m.float().mean() + c.float().mean() for m, c in zip(masks, classes)).backward()
    qkv = net.backbone.blocks[-1].attn.qkv.query_weight.grad
    assert qkv is not None and torch.isfinite(qkv).all() and qkv.abs().sum() > 0
    assert net.query_embed.weight.grad.abs().sum() > 0


def test_with_cp_gives_the_same_gradients():
    grads = []
    for with_cp in (False, True):
        net = network('specialized', num_blocks=2, query_specialize=True).train()
        net.backbone.with_cp = with_cp
        masks, classes = net(torch.ones(1, 3, 32, 32))
        (masks[-1].square().mean() + classes[-1].square().mean()).backward()
        grads.append([p.grad.clone() for p in net.parameters() if p.grad is not None])
    assert len(grads[0]) == len(grads[1])
    for a, b in zip(*grads):
        torch.testing.assert_close(a, b)


def test_eval_mode_and_probability_zero_apply_no_mask():
    net = network('registers', num_blocks=2)
    img = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        evaluated = net.eval()(img)
        net.train().attn_mask_probs.fill_(0.0)
        unmasked = net(img)
        net.attn_mask_probs.fill_(1.0)
        masked = net(img)
    for a, b in zip(evaluated[0] + evaluated[1], unmasked[0] + unmasked[1]):
        torch.testing.assert_close(a, b)
    torch.testing.assert_close(masked[0][0], unmasked[0][0])  # before the first query block
    assert not torch.allclose(masked[0][-1], unmasked[0][-1], atol=1e-4)


def test_attention_mask_restricts_queries_to_their_predicted_patches():
    net = network('registers', num_blocks=2).train()
    x = torch.zeros(2, 1 + 2 + 4 + 16, 32)  # CLS, 2 registers, 4 queries, 4 x 4 patches
    layout = TokenLayout(3, (4, 4), num_queries=4)
    logits = torch.randn(2, 4, 8, 8)
    net.attn_mask_probs.fill_(1.0)
    mask = net._attn_mask(logits, 0, x, layout)
    on = torch.nn.functional.interpolate(logits, (4, 4), mode='bilinear').flatten(2) > 0
    assert mask.shape == (2, 23, 23)
    assert torch.equal(mask[:, 3:7, 7:], on)
    mask[:, 3:7, 7:] = True
    assert mask.all()  # every other pair attends
    net.attn_mask_probs.fill_(0.5)
    torch.manual_seed(0)
    freed = torch.rand(2, 4) > 0.5
    torch.manual_seed(0)
    mask = net._attn_mask(logits, 1, x, layout)
    assert torch.equal(mask[:, 3:7, 7:].all(-1), freed | on.all(-1))


def test_query_copies_start_as_the_shared_parts():
    net = network('specialized', num_blocks=2, query_specialize=dict(norm=True, qkv=True))
    net.init_weights()
    sd = net.state_dict()
    query_keys = [k for k in sd if is_query_key(k)]
    assert len(query_keys) == 2 * (4 + 2 + 2)  # per block: norm1/2 (w, b), qkv (w, b), ls1/2
    for key in query_keys:
        torch.testing.assert_close(sd[key], sd[shared_key(key)])


def test_a_checkpoint_without_query_copies_fills_them_from_the_shared_parts():
    plain = network('specialized', num_blocks=2)
    spec = network('specialized', num_blocks=2, query_specialize=True)
    filtered = spec.filter_checkpoint(plain.state_dict())
    assert sorted(filtered.filled) == sorted(k for k in spec.state_dict() if is_query_key(k))
    spec.load_state_dict(filtered.state_dict, strict=True)
    img = torch.randn(1, 3, 32, 32)
    with torch.no_grad():
        (a, b), (c, d) = plain.eval()(img), spec.eval()(img)
    for x, y in zip(a + b, c + d):
        torch.testing.assert_close(x, y)


def test_query_copies_under_their_former_names_load():
    """Query copies saved as sibling modules (``blocks.N.query_norm1.weight``, ...) load onto the
    query rows of the specialized layers."""
    spec = network('specialized', num_blocks=2, query_specialize=True)
    with torch.no_grad():
        for name, p in spec.named_parameters():
            p.add_(0.01 * torch.randn_like(p))
    former = with_former_query_names(spec.state_dict())
    assert 'backbone.blocks.2.query_norm1.weight' in former
    assert 'backbone.blocks.2.attn.query_qkv.bias' in former
    filtered = spec.filter_checkpoint(former)
    assert filtered.filled == []
    own = spec.state_dict()
    assert filtered.state_dict.keys() == own.keys()
    for key, value in filtered.state_dict.items():
        assert torch.equal(value, own[key]), key


def test_query_rows_are_a_row_group_of_the_specialized_layers():
    """One mechanism: a query block is a plain Block whose parts serve the query rows."""
    net = network('specialized', num_blocks=2, query_specialize=True)
    owners = {
        name.rpartition('.')[0]
        for name, _ in net.named_parameters()
        if row_group_of(name) == 'query'
    }
    modules = dict(net.named_modules())
    assert owners == {
        f'backbone.blocks.{i}.{part}'
        for i in (1, 2)
        for part in ('norm1', 'norm2', 'ls1', 'ls2', 'attn.qkv')
    }
    assert all(modules[o].groups == ('cls', 'query') for o in owners)
    assert {type(b).__name__ for b in net.backbone.blocks} == {'Block'}
    assert [
        n
        for n, _ in net.named_parameters()
        if 'query' in n and n not in {f'{o}.{p}' for o in owners for p in modules[o]._parameters}
    ] == ['query_embed.weight']


@pytest.mark.parametrize(
    'technique,match',
    [
        ('class_attention', 'class-attention'),
        ('talking_heads', 'class-attention'),
        ('rel_pos_table', "rel_pos_bias='table'"),
        ('windowed_attention', 'is windowed'),
    ],
)
def test_refused_techniques(technique, match):
    with pytest.raises(ValueError, match=match):
        network(technique)


def test_refused_arguments():
    with pytest.raises(ValueError, match='plain joint Attention'):
        EoMTNetwork(toy(talking_heads=True, layer_scale_init=1e-5), 3, num_blocks=1)
    with pytest.raises(ValueError, match='num_blocks must be in'):
        EoMTNetwork(toy(), 3, num_blocks=4)
    with pytest.raises(TypeError, match="did you mean 'qkv'"):
        EoMTNetwork(toy(), 3, num_blocks=1, query_specialize=dict(qkvs=True))


@pytest.mark.slow
def test_eval_forward_compiles_into_one_graph_that_equals_eager():
    torch._dynamo.reset()
    net = network('specialized', num_blocks=2, query_specialize=True).eval()
    img = torch.randn(1, 3, 32, 32)
    compiled = torch.compile(net, backend='aot_eager', fullgraph=True)
    with torch.no_grad():
        (masks, classes), (eager_masks, eager_classes) = compiled(img), net(img)
    for a, b in zip(masks + classes, eager_masks + eager_classes):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)


def test_last_only_gives_the_final_prediction_in_eval_mode():
    net = network('registers', num_blocks=2).eval()
    img = torch.randn(1, 3, 32, 32)
    with torch.no_grad():
        (masks, classes), (last_masks, last_classes) = net(img), net(img, last_only=True)
    assert len(last_masks) == len(last_classes) == 1
    torch.testing.assert_close(last_masks[0], masks[-1])
    torch.testing.assert_close(last_classes[0], classes[-1])
    with pytest.raises(ValueError, match='last_only is for inference'):
        net.train()(img, last_only=True)
