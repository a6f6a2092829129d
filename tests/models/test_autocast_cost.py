"""What each technique costs under autocast, beyond its values: the FLOPs of forward + backward
and the aten ops it launches, counted on the CPU (`vitspec.benchmarking.op_counts`).

Under autocast a technique must do the work of fp32 and of the plain-op reference, no more (a
fused LayerScale once recomputed its projection in the backward: 13 % more FLOPs in a ViT), and
launch about the kernels timm's ViT launches: on a GPU every extra elementwise op over an
activation is a pass over memory.
"""

import pytest
import timm
import torch

import tests.autocast_reference as plain
from tests.models.backbones.test_spec_vit_autocast import FUNCTIONS
from tests.models.toy_techniques import TECHNIQUES, build
from vitspec.benchmarking.models import as_trained
from vitspec.benchmarking.op_counts import flop_count, inference_op_counts, op_counts
from vitspec.layers import specialized_functional
from vitspec.layers.specialized_functional import cls_and_shared_sums
from vitspec.models import SpecViT

PRECISIONS = (None, torch.bfloat16, torch.float16)
# 64 tokens: the CLS rows' own GEMM in a specialized qkv (B * num_cls rows) and the LoRA product
# W_cls - W (formed once per step) are then under 0.5 % of the work, as in a real-size ViT
TOY_IMAGE = (2, 3, 64, 64)


@pytest.mark.parametrize('technique', sorted(TECHNIQUES))
def test_flops_under_autocast_equal_fp32_and_the_plain_ops(technique, monkeypatch):
    """Beyond the plain ops, only the CLS and shared sums of a specialized backward (LayerScale,
    qkv bias) as one product with a (2, B N) 0/1 indicator: 4 B N D FLOPs each, counted apart."""
    model = build(technique)
    size = TOY_IMAGE if technique != 'rel_pos_table' else (2, 3, 32, 40)
    x = torch.randn(*size, generator=torch.Generator().manual_seed(0))
    indicator_flops = []

    def counted(t, num_cls):
        indicator_flops.append(4 * t[:, :, 0].numel() * t.shape[-1])
        return cls_and_shared_sums(t, num_cls)

    monkeypatch.setattr(specialized_functional, 'cls_and_shared_sums', counted)
    flops = {str(dtype): flop_count(model, (x,), dtype) for dtype in PRECISIONS}
    for module, name in FUNCTIONS:
        monkeypatch.setattr(module, name, getattr(plain, name))
    reference = flop_count(model, (x,), None) + sum(indicator_flops) // len(PRECISIONS)
    assert reference > 0
    for precision, count in flops.items():
        assert count == pytest.approx(reference, rel=5e-3), (precision, flops, reference)


# ViT-S/16 at batch 2 on 64x64 images: 16 patches and a CLS token
VIT_S = dict(embed_dim=384, depth=12, num_heads=6, patch_size=16, img_size=64)
BATCH, TOKENS = 2, 17
SPEC_NORMS = SPEC_SCALES = 12 * 2  # every block: norm1, norm2; ls1, ls2
SPEC_QKV = 12 // 3  # qkv_blocks='first_third'


def timm_ls():
    return timm.models.VisionTransformer(
        **VIT_S, init_values=1e-5, num_classes=0, global_pool='', dynamic_img_size=True
    )


def specvit(**options):
    d = VIT_S
    return SpecViT(
        img_size=d['img_size'],
        patch_size=d['patch_size'],
        embed_dims=d['embed_dim'],
        num_layers=d['depth'],
        num_heads=d['num_heads'],
        out_indices=(11,),
        layer_scale_init=1e-5,
        **options,
    )


def models():
    torch.manual_seed(0)
    # as trained: B = 0 (the init) takes a shortcut in inference
    lora = as_trained(specvit(specialize=dict(lora_rank=16)))
    return dict(timm_ls=timm_ls(), ls=specvit(), spec=specvit(specialize=dict()), lora=lora)


@pytest.fixture(scope='module')
def counts():
    x = torch.randn(BATCH, 3, 64, 64)
    found = {k: op_counts(m.train(), (x,), torch.bfloat16) for k, m in models().items()}
    for name, c in found.items():
        print(name, c.summary(), 'activation casts', c.activation_casts(BATCH, TOKENS))
    return found


@pytest.fixture(scope='module', params=[None, torch.bfloat16], ids=['fp32', 'bf16'])
def inference_counts(request):
    x = torch.randn(BATCH, 3, 64, 64)
    found = {k: inference_op_counts(m.eval(), (x,), request.param) for k, m in models().items()}
    print({name: c.kernels for name, c in found.items()})
    return found


@pytest.mark.slow
def test_layer_scale_launches_what_timm_launches(counts):
    ours, timm_ = counts['ls'], counts['timm_ls']
    assert ours.casts <= timm_.casts
    assert ours.activation_casts(BATCH, TOKENS) <= timm_.activation_casts(BATCH, TOKENS)
    assert ours.gemms <= timm_.gemms
    # SpecViT's output path (prefix tokens sliced off, and that slice's backward) runs a few
    # kernels that timm's token output does not: the bound
    assert ours.kernels <= timm_.kernels + 8
    assert ours.total <= timm_.total * 1.01


@pytest.mark.slow
@pytest.mark.parametrize('form', ['spec', 'lora'])
def test_specialization_adds_kernels_on_the_cls_rows_only(counts, form):
    """Bounds per specialized layer, which must act on the CLS rows (small tensors): a norm adds
    at most 5 kernels (the CLS norm and its backward, two row writes, one `_foreach_sub_` for
    both affine corrections), a LayerScale 1 (its backward's CLS-row product; the CLS and shared
    sums of its gradient are one GEMM with a 0/1 token indicator, kept per shape), a qkv 10 (the
    CLS rows' GEMMs, casts and indicator GEMM for the biases; LoRA 18, through its rank-r
    factors). The whole activations are cast as often as without.

    Measured (ViT-S/16, bf16, a step after the first): 935 kernels (spec) and 967 (LoRA) against
    755, 1.238x and 1.281x; before the indicator sums 963 and 1007, first 1079 and 1103."""
    ours, ls = counts[form], counts['ls']
    assert ours.activation_casts(BATCH, TOKENS) <= ls.activation_casts(BATCH, TOKENS)
    indicator_gemms = SPEC_SCALES + SPEC_QKV
    assert ours.gemms <= ls.gemms + indicator_gemms + SPEC_QKV * (6 if form == 'lora' else 3)
    qkv = 18 if form == 'lora' else 10
    assert ours.kernels <= ls.kernels + 5 * SPEC_NORMS + 1 * SPEC_SCALES + qkv * SPEC_QKV
    # the bound for the full form; LoRA's rank-r factors add 32 kernels to it
    assert ours.kernels <= (1.29 if form == 'lora' else 1.25) * ls.kernels


@pytest.mark.slow
@pytest.mark.parametrize('form', ['spec', 'lora'])
def test_specialization_in_inference_adds_kernels_to_the_norms_and_qkv_only(inference_counts, form):
    """Without autograd a specialized LayerScale and its skip connection are one addcmul with a
    kept (tokens, D) table of its scales, one kernel fewer than timm's product and sum; a
    specialized norm adds two (the CLS rows' norm and their write); a specialized qkv two (the
    CLS rows' GEMM in place, their cast under autocast). LoRA merges its CLS weight once (W + B
    A) and then launches what the full form launches. Measured (ViT-S/16, batch 2): 177 against
    149 kernels in fp32 (1.19x), 304 against 272 under bf16 (1.12x); before the tables, 201 and
    328. The issue's 1.10x needs the norms' affine as tables too (153 and 280 kernels, 1.03x),
    tried and left: a second pass over the activation, 3-4 % slower on this CPU."""
    ours, ls = inference_counts[form], inference_counts['ls']
    assert ours.gemms == ls.gemms + SPEC_QKV
    assert ours.kernels <= ls.kernels + 2 * SPEC_NORMS - 1 * SPEC_SCALES + 2 * SPEC_QKV
    assert ours.kernels <= 1.20 * ls.kernels
    if form == 'lora':
        assert ours.by_name == inference_counts['spec'].by_name
