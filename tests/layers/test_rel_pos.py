"""Relative position bias: parity with timm's SAM / ViTDet (decomposed) and BEiT (table) code."""

from functools import partial

import pytest
import torch
import torch.nn.functional as F
from timm.models import beit
from timm.models import vision_transformer_sam as sam
from torch import nn

from vitspec.layers import Attention, Block, Mlp, TokenLayout
from vitspec.layers.pos_embed import resample_pos_embed
from vitspec.layers.rel_pos import (
    decomposed_rel_pos_bias,
    rel_pos_lookup,
    rel_pos_lookup_same_axis,
    table_index,
)

DIM, HEADS = 32, 4


def randomize(module):
    torch.manual_seed(1)
    with torch.no_grad():
        for p in module.parameters():
            p.normal_(std=0.3)
    return module


def sam_attention(size):
    return randomize(sam.Attention(DIM, HEADS, use_rel_pos=True, input_size=size)).eval()


@pytest.mark.parametrize(
    'size, hw', [((4, 4), (4, 4)), ((3, 5), (3, 5)), ((4, 4), (3, 6))]
)  # the last resamples both tables
def test_decomposed_matches_timm_sam_attention(size, hw):
    ref = sam_attention(size)
    ours = Attention(DIM, HEADS, rel_pos_bias='decomposed', rel_pos_size=size).eval()
    ours.load_state_dict(ref.state_dict())  # same names: qkv, proj, rel_pos_h, rel_pos_w
    x = torch.randn(2, *hw, DIM)
    want = ref(x).reshape(2, -1, DIM)
    got = ours(x.reshape(2, -1, DIM), TokenLayout(0, hw))
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


def test_lookup_resamples_linearly_as_timm():
    table = torch.randn(7, 5)
    for q, k in ((4, 4), (6, 6), (2, 2), (3, 5)):
        torch.testing.assert_close(rel_pos_lookup(q, k, table), sam.get_rel_pos(q, k, table))


def sam_block(window, size):
    norm = partial(nn.LayerNorm, eps=1e-6)
    blk = sam.Block(
        DIM, HEADS, use_rel_pos=True, window_size=window, input_size=size, norm_layer=norm
    )
    return randomize(blk).eval()


@pytest.mark.parametrize('window, hw', [(0, (4, 6)), (3, (6, 6)), (4, (5, 7)), (4, (7, 5))])
def test_block_matches_timm_sam_block(window, hw):
    """Global and windowed blocks, grids that are and are not multiples of the window."""
    ref = sam_block(window, (4, 6))
    attn = partial(
        Attention,
        num_heads=HEADS,
        window_size=window,
        rel_pos_bias='decomposed',
        rel_pos_size=(window, window) if window else (4, 6),
        window_padding='zeros',
    )
    ours = Block(DIM, attn, partial(Mlp, hidden=4 * DIM)).eval()
    ours.load_state_dict(ref.state_dict())
    x = torch.randn(2, *hw, DIM)
    want = ref(x).reshape(2, -1, DIM)
    got = ours(x.reshape(2, -1, DIM), TokenLayout(0, hw))
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
    if window and (hw[0] % window or hw[1] % window):  # masked padding is not ViTDet's
        ours.attn.window_padding = 'masked'
        got = ours(x.reshape(2, -1, DIM), TokenLayout(0, hw))
        assert not torch.allclose(got, want, atol=1e-3)


def test_decomposed_gives_prefix_tokens_no_bias():
    attn = randomize(Attention(DIM, HEADS, rel_pos_bias='decomposed', rel_pos_size=(3, 4)))
    x = torch.randn(2, 2 + 12, DIM)
    q, k, v = attn._qkv(x)
    bias = F.pad(
        decomposed_rel_pos_bias(q[:, :, 2:], attn.rel_pos_h, attn.rel_pos_w, (3, 4)), (2, 0, 2, 0)
    )
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    want = attn.proj(out.transpose(1, 2).reshape(2, 14, DIM))
    torch.testing.assert_close(attn(x, TokenLayout(1, (3, 4))), want, atol=1e-5, rtol=1e-5)
    assert not torch.allclose(bias[:, :, 2:, 2:], torch.zeros(()))


def beit_attention(grid):
    return randomize(beit.Attention(DIM, HEADS, qkv_bias=True, window_size=grid)).eval()


def test_table_index_is_beits():
    for grid in ((4, 4), (3, 5)):
        assert torch.equal(table_index(grid), beit.gen_relative_position_index(grid))


@pytest.mark.parametrize('grid', [(4, 4), (3, 5)])
def test_table_matches_timm_beit_attention(grid):
    ref = beit_attention(grid)
    ours = Attention(DIM, HEADS, rel_pos_bias='table', rel_pos_size=grid).eval()
    ref_sd = ref.state_dict()
    with torch.no_grad():
        ours.qkv.weight.copy_(ref_sd['qkv.weight'])
        ours.qkv.bias.copy_(torch.cat([ref.q_bias, torch.zeros_like(ref.q_bias), ref.v_bias]))
        ours.proj.load_state_dict(ref.proj.state_dict())
        ours.relative_position_bias_table.copy_(ref.relative_position_bias_table)
    x = torch.randn(2, 1 + grid[0] * grid[1], DIM)
    torch.testing.assert_close(ours(x, TokenLayout(1, grid)), ref(x), atol=1e-5, rtol=1e-5)
    assert 'relative_position_index' not in ours.state_dict()  # timm: not persistent


def test_table_refuses_another_grid_and_windows():
    attn = Attention(DIM, HEADS, rel_pos_bias='table', rel_pos_size=(4, 4))
    with pytest.raises(ValueError, match=r'made for a \(4, 4\) patch grid'):
        attn(torch.randn(1, 1 + 15, DIM), TokenLayout(1, (3, 5)))
    with pytest.raises(ValueError, match='global attention'):
        Attention(DIM, HEADS, window_size=2, rel_pos_bias='table', rel_pos_size=(2, 2))
    with pytest.raises(ValueError, match='rel_pos_bias must be'):
        Attention(DIM, HEADS, rel_pos_bias='swin', rel_pos_size=(2, 2))


@pytest.mark.parametrize(
    'mode, window, prefix',
    [('decomposed', 0, 1), ('decomposed', 2, 1), ('decomposed', 2, 0), ('table', 0, 1)],
)
def test_zero_init_equals_no_bias(mode, window, prefix):
    plain = randomize(Attention(DIM, HEADS, window_size=window))
    ours = Attention(DIM, HEADS, window_size=window, rel_pos_bias=mode, rel_pos_size=(3, 4))
    missing = ours.load_state_dict(plain.state_dict(), strict=False).missing_keys
    assert missing and all(torch.count_nonzero(ours.get_parameter(k)) == 0 for k in missing)
    x = torch.randn(2, prefix + 12, DIM)
    torch.testing.assert_close(
        ours(x, TokenLayout(prefix, (3, 4))), plain(x, TokenLayout(prefix, (3, 4)))
    )


def test_vitdet_pos_embed_resampling_is_get_abs_pos():
    """ViTDet's get_abs_pos (detectron2 modeling/backbone/utils.py): drop the CLS slot, bicubic
    to the token grid by size, no antialiasing; timm's antialiased bicubic differs."""
    pos = torch.randn(1, 14 * 14, 8)
    want = (
        F.interpolate(
            pos.reshape(1, 14, 14, 8).permute(0, 3, 1, 2),
            size=(64, 48),
            mode='bicubic',
            align_corners=False,
        )
        .permute(0, 2, 3, 1)
        .reshape(1, -1, 8)
    )
    torch.testing.assert_close(resample_pos_embed(pos, (64, 48), (14, 14), 0, 'vitdet'), want)
    assert not torch.allclose(
        resample_pos_embed(pos, (64, 48), (14, 14), 0, 'timm'), want, atol=1e-2
    )


def test_the_export_form_of_the_lookup_equals_the_lookup():
    table = torch.randn(7, 16)  # made for an axis of 4
    for size in (4, 5, 2, 9, 1):  # its own, longer, shorter
        want = rel_pos_lookup(size, size, table)
        got = rel_pos_lookup_same_axis(size, table)
        assert got.shape == want.shape == (size, size, 16)
        assert (got - want).abs().max() < 1e-6, size


class DecomposedBias(nn.Module):
    def __init__(self):
        super().__init__()
        self.rel_pos_h = nn.Parameter(torch.randn(7, 8))
        self.rel_pos_w = nn.Parameter(torch.randn(7, 8))

    def forward(self, q, grid):  # q: (B, h*w, 8); grid: (h, w), its shape the patch grid
        return decomposed_rel_pos_bias(q, self.rel_pos_h, self.rel_pos_w, grid.shape)


def test_an_exported_decomposed_bias_takes_the_integer_lookup_and_follows_the_size():
    """Eager, the lookup's stretch is a symbolic float and its resampling a guard on the traced
    size; while exporting, the integer form is taken and the graph is right at every size."""
    model = DecomposedBias()
    auto = torch.export.Dim.AUTO
    dims = ({1: auto}, {0: auto, 1: auto})
    program = torch.export.export(
        model, (torch.randn(2, 30, 8), torch.zeros(5, 6)), dynamic_shapes=dims
    )
    for h, w in [(5, 6), (4, 4), (3, 8)]:
        q = torch.randn(2, h * w, 8)
        want = model(q, torch.zeros(h, w))
        got = program.module()(q, torch.zeros(h, w))
        assert got.shape == want.shape and (got - want).abs().max() < 1e-5, (h, w)
