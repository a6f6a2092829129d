"""DINOv3's 2-D rotary position embedding: tables as timm's port of DINOv3 computes them,
prefix tokens untouched, augmentations in training mode only, windows rotated globally."""

import pytest
import torch
import torch.nn.functional as F
from timm.layers.pos_embed_sincos import RotaryEmbeddingDinoV3

from vitspec.layers import Attention, TokenLayout
from vitspec.layers.rope import RopePositionEmbedding, apply_rope, rope_periods


@pytest.mark.parametrize('normalize', ['separate', 'max', 'min'])
@pytest.mark.parametrize(
    'schedule', [dict(base=100.0), dict(base=None, min_period=0.5, max_period=40.0)]
)
def test_tables_match_timms_dinov3_rope(normalize, schedule):
    ours = RopePositionEmbedding(64, normalize_coords=normalize, **schedule).eval()
    ref = RotaryEmbeddingDinoV3(
        64,
        temperature=schedule['base'],
        min_period=schedule.get('min_period'),
        max_period=schedule.get('max_period'),
        normalize_coords=normalize,
    ).eval()
    torch.testing.assert_close(ours.periods, ref.periods, atol=0, rtol=1e-6)
    sin, cos = ours((3, 5))
    torch.testing.assert_close(torch.cat([sin, cos], -1), ref.get_embed(shape=[3, 5]))


def test_normalizations_differ_off_square_and_agree_on_square():
    tables = {n: RopePositionEmbedding(32, normalize_coords=n)((4, 6))[0] for n in ('max', 'min')}
    tables['separate'] = RopePositionEmbedding(32)((4, 6))[0]
    assert not torch.allclose(tables['max'], tables['separate'])
    assert not torch.allclose(tables['min'], tables['separate'])
    square = [RopePositionEmbedding(32, normalize_coords=n)((5, 5))[0] for n in ('max', 'min')]
    torch.testing.assert_close(square[0], RopePositionEmbedding(32)((5, 5))[0])
    torch.testing.assert_close(square[1], square[0])


def test_periods_follow_dinov3s_base_schedule():
    periods = rope_periods(64, 100.0)
    assert periods.numel() == 16 and periods[0] == 1.0
    torch.testing.assert_close(periods[-1], torch.tensor(100.0 ** (30 / 32)))


def test_prefix_rows_are_the_identity_and_dtype_is_kept():
    rope = RopePositionEmbedding(16)
    sin, cos = rope((2, 3), num_prefix=5)
    assert sin.shape == cos.shape == (5 + 6, 16)
    x = torch.randn(2, 4, 11, 16, dtype=torch.bfloat16)
    y = apply_rope(x, (sin, cos))
    assert y.dtype == torch.bfloat16
    assert torch.equal(y[:, :, :5], x[:, :, :5])
    assert not torch.equal(y[:, :, 5:], x[:, :, 5:])
    # a rotation: every (i, i + d/2) pair keeps its length
    xf, yf = x.float(), y.float()
    pair_len = lambda t: t[..., :8] ** 2 + t[..., 8:] ** 2  # noqa: E731
    torch.testing.assert_close(pair_len(yf), pair_len(xf), atol=0.05, rtol=0.02)


def test_coordinate_augmentations_only_in_training():
    rope = RopePositionEmbedding(16, shift_coords=0.5, jitter_coords=2.0, rescale_coords=2.0)
    plain = RopePositionEmbedding(16)
    rope.eval()
    torch.testing.assert_close(rope((3, 4)), plain((3, 4)))
    rope.train()
    torch.manual_seed(0)
    first = rope((3, 4))
    torch.manual_seed(0)
    again = rope((3, 4))
    torch.testing.assert_close(first, again)  # seeded: reproducible
    assert not torch.allclose(first[0], plain((3, 4))[0])
    plain.train()  # no augmentation configured: training changes nothing
    torch.testing.assert_close(plain((3, 4)), RopePositionEmbedding(16)((3, 4)))


@pytest.mark.parametrize(
    'kwargs, match',
    [
        (dict(head_dim=18), 'divisible by 4'),
        (dict(head_dim=16, base=None), 'either base'),
        (dict(head_dim=16, min_period=1.0, max_period=10.0), 'either base'),
        (dict(head_dim=16, normalize_coords='mean'), 'normalize_coords'),
        (dict(head_dim=16, rescale_coords=0.5), 'factor >= 1'),
    ],
)
def test_bad_options_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        RopePositionEmbedding(**kwargs)


def masked_reference(attn, x, hw, window, num_prefix, rope):
    """Dense attention with a same-window mask, q and k rotated by ``rope``."""
    B, N, _ = x.shape
    q, k, v = attn._qkv(x)
    q, k = apply_rope(q, rope), apply_rope(k, rope)
    h, w = hw
    rows = torch.arange(h).repeat_interleave(w) // window
    cols = torch.arange(w).repeat(h) // window
    win = torch.cat([torch.full((num_prefix,), -1), rows * 1000 + cols])
    mask = win[:, None] == win[None, :]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return attn.proj(out.transpose(1, 2).reshape(B, N, -1))


def test_windows_rotate_by_the_global_patch_coordinates():
    torch.manual_seed(0)
    hw, window, prefix = (6, 8), 4, 2
    attn = Attention(32, num_heads=2, window_size=window).eval()
    table = RopePositionEmbedding(16)
    rope = table(hw, num_prefix=prefix)
    x = torch.randn(2, prefix + hw[0] * hw[1], 32)
    with torch.no_grad():
        got = attn(x, TokenLayout(0, hw, rope))
        want = masked_reference(attn, x, hw, window, prefix, rope)
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
        # per-window coordinates (each window its own window x window grid) give another result
        local = table((window, window))
        index = torch.arange(hw[0] * hw[1]).reshape(hw)
        sin, cos = rope[0].clone(), rope[1].clone()
        for r in range(0, hw[0], window):
            for c in range(0, hw[1], window):
                cell = index[r : r + window, c : c + window]
                local_idx = (torch.arange(cell.shape[0])[:, None] * window) + torch.arange(
                    cell.shape[1]
                )
                sin[prefix + cell.flatten()] = local[0][local_idx.flatten()]
                cos[prefix + cell.flatten()] = local[1][local_idx.flatten()]
        per_window = masked_reference(attn, x, hw, window, prefix, (sin, cos))
        assert (per_window - got).abs().max() > 1e-3


def test_attention_without_rope_is_unchanged_by_the_new_field():
    torch.manual_seed(0)
    attn = Attention(32, num_heads=2).eval()
    x = torch.randn(1, 1 + 12, 32)
    rope = RopePositionEmbedding(16)((3, 4), num_prefix=1)
    with torch.no_grad():
        plain = attn(x, TokenLayout(1, (3, 4)))
        rotated = attn(x, TokenLayout(1, (3, 4), rope))
        identity = tuple(t[:1].expand_as(t) for t in rope)  # every row: no rotation
        torch.testing.assert_close(attn(x, TokenLayout(1, (3, 4), identity)), plain)
    assert (rotated - plain).abs().max() > 1e-4
