import pytest
import torch

from vitspec.layers import resample_pos_embed


def ramp_pos_embed(h, w, num_prefix=1):
    """A position embedding whose channels are the row and the column index."""
    rows = torch.arange(h, dtype=torch.float32)[:, None].expand(h, w)
    cols = torch.arange(w, dtype=torch.float32)[None, :].expand(h, w)
    grid = torch.stack([rows, cols], -1).reshape(1, h * w, 2)
    return torch.cat([torch.full((1, num_prefix, 2), 7.0), grid], 1)


@pytest.mark.parametrize('mode', ['timm', 'dinov2'])
def test_native_size_is_unchanged_and_prefix_kept(mode):
    pos = torch.randn(1, 1 + 16, 8)
    assert resample_pos_embed(pos, (4, 4), (4, 4), 1, mode) is pos
    out = resample_pos_embed(pos, (6, 3), (4, 4), 1, mode)
    assert out.shape == (1, 1 + 18, 8)
    torch.testing.assert_close(out[:, :1], pos[:, :1])


def cubic_sample(values, src, a=-0.75):
    """Keys cubic convolution of a 1-D signal at position src (PyTorch's bicubic: a=-0.75;
    with antialias=True it uses a=-0.5, as PIL does)."""

    def kernel(x):
        x = abs(x)
        if x <= 1:
            return (a + 2) * x**3 - (a + 3) * x**2 + 1
        return a * x**3 - 5 * a * x**2 + 8 * a * x - 4 * a if x < 2 else 0.0

    base = int(torch.floor(torch.tensor(src)))
    taps = range(base - 1, base + 3)
    return sum(kernel(src - k) * values[min(max(k, 0), len(values) - 1)] for k in taps)


@pytest.mark.parametrize('mode', ['timm', 'dinov2'])
def test_sampling_positions(mode):
    """Output index i samples the old grid at (i + 0.5) / s - 0.5: s = new / old for timm
    (size-based, antialiased), s = (new + 0.1) / old for the original DINOv2 (its 0.1
    offset). Upsampling only: antialiasing widens the kernel when downsampling."""
    old, new = (8, 8), (12, 10)
    out = resample_pos_embed(ramp_pos_embed(*old), new, old, 1, mode)
    grid = out[0, 1:].reshape(*new, 2)
    for axis in (0, 1):
        scale = (new[axis] + (0.1 if mode == 'dinov2' else 0.0)) / old[axis]
        got = grid[:, 0, 0] if axis == 0 else grid[0, :, 1]
        a = -0.5 if mode == 'timm' else -0.75
        src = [(i + 0.5) / scale - 0.5 for i in range(new[axis])]
        # all four taps inside the grid: borders are clamped (or renormalised with antialias)
        inside = [i for i, x in enumerate(src) if 1 <= x < old[axis] - 2]
        assert len(inside) >= 4
        expected = [cubic_sample(list(range(old[axis])), src[i], a) for i in inside]
        torch.testing.assert_close(got[inside], torch.tensor(expected), atol=1e-4, rtol=0)


def test_modes_differ_off_native_size():
    pos = torch.randn(1, 1 + 64, 4)
    a = resample_pos_embed(pos, (10, 6), (8, 8), 1, 'timm')
    b = resample_pos_embed(pos, (10, 6), (8, 8), 1, 'dinov2')
    assert not torch.allclose(a, b, atol=1e-3)


def test_unknown_mode():
    with pytest.raises(ValueError, match='pos_embed_interp must be one of'):
        resample_pos_embed(torch.zeros(1, 5, 2), (3, 3), (2, 2), 1, 'nearest')
