import pytest
import torch
import torch.nn.functional as F

from vitspec.layers import Attention, TokenLayout
from vitspec.layers.window_attention import window_partition, window_unpartition, windowed_sdpa


@pytest.mark.parametrize('hw', [(8, 8), (7, 10), (5, 3)])
def test_partition_round_trip(hw):
    x = torch.randn(2, 6, *hw)
    win, padded = window_partition(x, 4)
    assert padded == (-(-hw[0] // 4) * 4, -(-hw[1] // 4) * 4)
    assert win.shape == (2 * padded[0] * padded[1] // 16, 6, 16)
    torch.testing.assert_close(window_unpartition(win, 4, padded, hw, 2), x)


def reference(q, k, v, hw, window, num_prefix):
    """Attention computed window by window over real tokens only, prefix among prefix."""
    B, H, N, d = q.shape
    h, w = hw
    out = torch.empty_like(q)
    P = num_prefix
    out[:, :, :P] = F.scaled_dot_product_attention(q[:, :, :P], k[:, :, :P], v[:, :, :P])
    grid = torch.arange(h * w).reshape(h, w)
    for r in range(0, h, window):
        for c in range(0, w, window):
            idx = P + grid[r : r + window, c : c + window].flatten()
            out[:, :, idx] = F.scaled_dot_product_attention(
                q[:, :, idx], k[:, :, idx], v[:, :, idx]
            )
    return out


@pytest.mark.parametrize('hw, prefix', [((8, 8), 1), ((7, 10), 1), ((5, 3), 3), ((6, 9), 0)])
def test_windowed_sdpa_matches_per_window_attention(hw, prefix):
    torch.manual_seed(0)
    n = prefix + hw[0] * hw[1]
    q, k, v = (torch.randn(2, 3, n, 8) for _ in range(3))
    got = windowed_sdpa(q, k, v, hw, 4)
    torch.testing.assert_close(got, reference(q, k, v, hw, 4, prefix), atol=1e-5, rtol=1e-5)


def test_window_as_large_as_the_grid_is_global_attention_over_patches():
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 2, 16, 8) for _ in range(3))
    torch.testing.assert_close(
        windowed_sdpa(q, k, v, (4, 4), 4),
        F.scaled_dot_product_attention(q, k, v),
        atol=1e-5,
        rtol=1e-5,
    )


def test_attention_module_needs_the_grid():
    attn = Attention(32, 4, window_size=4)
    x = torch.randn(1, 1 + 35, 32)
    assert attn(x, TokenLayout(1, (5, 7))).shape == x.shape
    with pytest.raises(ValueError, match='need the patch grid'):
        attn(x)


def test_zero_padding_changes_only_padded_grids():
    """window_padding='zeros' (ViTDet) lets padded keys take part: same as masking on a grid
    that is a multiple of the window, different otherwise (timm parity: test_rel_pos.py)."""
    torch.manual_seed(0)
    pad_kv = (torch.randn(3, 8), torch.randn(3, 8))
    for hw, same in (((8, 8), True), ((7, 10), False)):
        q, k, v = (torch.randn(2, 3, 1 + hw[0] * hw[1], 8) for _ in range(3))
        masked, zeros = windowed_sdpa(q, k, v, hw, 4), windowed_sdpa(q, k, v, hw, 4, pad_kv=pad_kv)
        assert torch.allclose(masked, zeros, atol=1e-6) == same
    with pytest.raises(ValueError, match='window_padding must be one of'):
        Attention(32, 4, window_size=4, window_padding='reflect')
