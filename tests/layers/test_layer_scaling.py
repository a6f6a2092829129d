import pytest
import torch
from torch import nn

from vitspec.layers.layer_scaling import layerwise_widths, linear_multipliers, make_divisible

OPENELM = dict(alpha=(0.5, 1.0), beta=(0.5, 4.0))


def test_make_divisible():
    assert make_divisible(678.4, 256) == 768  # nearest multiple
    assert make_divisible(806.4, 256) == 768  # rounds down by 4.8 %: kept
    assert make_divisible(857.6, 256) == 1024  # 768 would lose 10.4 %: one step up
    assert make_divisible(10, 8) == 16  # 8 < 0.9 * 10
    assert make_divisible(20, 8) == 24  # int(20 + 4) // 8 * 8
    assert make_divisible(3, 8) == 8  # min_value defaults to the divisor
    assert make_divisible(3, 8, min_value=16) == 16
    assert isinstance(make_divisible(1241.6, 256), int)


def test_linear_multipliers_round_to_two_decimals():
    assert linear_multipliers((0.5, 1.0), 16) == [
        0.5,
        0.53,
        0.57,
        0.6,
        0.63,
        0.67,
        0.7,
        0.73,
        0.77,
        0.8,
        0.83,
        0.87,
        0.9,
        0.93,
        0.97,
        1.0,
    ]
    assert linear_multipliers((2.0, 2.0), 3) == [2.0, 2.0, 2.0]


def test_openelm_270m():
    # OpenELM-270M (2404.14619): 16 layers, d_model 1280, head_dim 64, 4 GQA groups -> divisor 256
    widths = layerwise_widths(16, 1280, 64, head_divisor=256, ffn_divisor=256, **OPENELM)
    heads = [w.num_heads for w in widths]
    assert heads == [12, 12, 12, 12, 12, 16, 16, 16, 16, 16, 16, 16, 20, 20, 20, 20]
    assert [h // 4 for h in heads] == [3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5]  # KV heads
    ffn = [w.mlp_hidden for w in widths]
    assert ffn[0] == 768 and ffn[-1] == 5120
    assert all(f % 256 == 0 for f in ffn) and ffn == sorted(ffn)
    # by hand: beta_i = round(0.5 + 3.5 i / 15, 2) = 0.5, 0.73, 0.97, 1.2, ...; beta_i * 1280 =
    # 640, 934.4, 1241.6, 1536, 1830.4, 2137.6, 2432, 2726.4, 3033.6, 3328, 3622.4, 3929.6, 4224,
    # 4518.4, 4825.6, 5120, each rounded to the nearest multiple of 256 (none loses 10 %)
    assert ffn == [
        768,
        1024,
        1280,
        1536,
        1792,
        2048,
        2560,
        2816,
        3072,
        3328,
        3584,
        3840,
        4352,
        4608,
        4864,
        5120,
    ]


@pytest.mark.parametrize(
    'num_layers, d_model, head_dim, heads, ffn',
    [
        (
            20,
            1536,
            64,
            [12] * 3 + [16] * 7 + [20] * 6 + [24] * 4,
            [
                768,
                1024,
                1280,
                1536,
                1792,
                2304,
                2560,
                2816,
                3072,
                3328,
                3584,
                3840,
                4096,
                4352,
                4608,
                5120,
                5376,
                5632,
                5888,
                6144,
            ],
        ),
        (
            28,
            2048,
            64,
            [16] * 3 + [20] * 7 + [24] * 8 + [28] * 6 + [32] * 4,
            [
                1024,
                1280,
                1536,
                1792,
                2048,
                2304,
                2560,
                2816,
                3072,
                3328,
                3584,
                3840,
                4096,
                4608,
                4608,
                5120,
                5376,
                5632,
                5888,
                6144,
                6400,
                6656,
                6912,
                7168,
                7424,
                7680,
                7936,
                8192,
            ],
        ),
        (
            36,
            3072,
            128,
            [12] * 4 + [16] * 14 + [20] * 12 + [24] * 6,
            [
                1536,
                1792,
                2048,
                2560,
                2816,
                3072,
                3328,
                3584,
                4096,
                4352,
                4608,
                4864,
                5120,
                5632,
                5888,
                6144,
                6400,
                6656,
                7168,
                7424,
                7680,
                7936,
                8192,
                8704,
                8960,
                9216,
                9472,
                9728,
                10240,
                10496,
                10752,
                11008,
                11264,
                11776,
                12032,
                12288,
            ],
        ),
    ],
)
def test_released_openelm_checkpoints(num_layers, d_model, head_dim, heads, ffn):
    # OpenELM-450M / 1.1B / 3B: per-layer query heads and FFN widths of the released checkpoints
    # (the weight shapes; the HF configs list the same head counts).
    widths = layerwise_widths(
        num_layers, d_model, head_dim, head_divisor=4 * head_dim, ffn_divisor=256, **OPENELM
    )
    assert [w.num_heads for w in widths] == heads
    assert [w.mlp_hidden for w in widths] == ffn


def block_params(dim, num_heads, mlp_hidden, head_dim=64):
    """Parameters of a pre-norm ViT block (timm layout, no LayerScale), built on the meta device."""
    inner = num_heads * head_dim
    with torch.device('meta'):
        layers = [
            nn.LayerNorm(dim),
            nn.Linear(dim, 3 * inner),
            nn.Linear(inner, dim),
            nn.LayerNorm(dim),
            nn.Linear(dim, mlp_hidden),
            nn.Linear(mlp_hidden, dim),
        ]
    return sum(p.numel() for m in layers for p in m.parameters())


@pytest.mark.parametrize(
    'dim, depth, heads, mlp_ends, scaled_m, uniform_m',
    [
        (384, 12, [3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6], (192, 1536), 13.3, 21.3),
        (768, 12, [6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12], (384, 3072), 53.2, 85.1),
        (1024, 24, None, (512, 4096), 189.0, 302.3),
    ],
)
def test_vit_block_params_with_openelm_schedule(dim, depth, heads, mlp_ends, scaled_m, uniform_m):
    # a ViT with OpenELM's alpha and beta: head_dim 64, divisor 64 for heads and MLP
    widths = layerwise_widths(depth, dim, 64, ffn_divisor=64, **OPENELM)
    got_heads = [w.num_heads for w in widths]
    if heads is not None:
        assert got_heads == heads
    assert (got_heads[0], got_heads[-1]) == (dim // 128, dim // 64)
    mlp = [w.mlp_hidden for w in widths]
    assert (mlp[0], mlp[-1]) == mlp_ends and all(m % 64 == 0 for m in mlp)
    scaled = sum(block_params(dim, *w) for w in widths)
    uniform = depth * block_params(dim, dim // 64, 4 * dim)
    assert round(scaled / 1e6, 1) == scaled_m
    assert round(uniform / 1e6, 1) == uniform_m
    assert 0.62 < scaled / uniform < 0.63  # "fall to about 63 %"


def test_uniform_schedule_and_defaults():
    widths = layerwise_widths(12, 384, 64, alpha=(1.0, 1.0), beta=(4.0, 4.0))
    assert widths == [(6, 1536)] * 12
    assert layerwise_widths(12, 384, 64) == layerwise_widths(12, 384, 64, ffn_divisor=64, **OPENELM)


def test_head_divisor_must_be_a_multiple_of_head_dim():
    with pytest.raises(ValueError, match='not a multiple of head_dim 64'):
        layerwise_widths(12, 384, 64, head_divisor=96)
