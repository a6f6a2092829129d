"""Sliding windows: every pixel covered, rows finished top to bottom in bands no taller than a
window, and the blend exact where the windows' outputs are: a model whose output at a pixel
depends only on a small neighbourhood (a 5x5 convolution) gives, on a large image, the whole-image
output everywhere except within its 2-pixel reach of a window's inner edge."""

import numpy as np
import pytest
import torch

from vitspec.inference.sliding import SlidingWindows, blend_weights, window_starts

REACH = 2  # of a 5x5 convolution


def test_window_starts_cover_the_length_and_end_at_the_edge():
    assert window_starts(100, 128, 64) == [0]
    assert window_starts(300, 128, 86) == [0, 86, 172]
    assert window_starts(128, 128, 64) == [0]


def test_blend_weights_are_positive_and_fall_towards_the_edges():
    weights = blend_weights((10, 12), (4, 4))
    assert weights.min() > 0 and weights.max() == 1
    assert weights[0, 0] < weights[1, 1] < weights[5, 6]


def conv_model(channels=3, kernel=5, seed=0):
    torch.manual_seed(seed)
    conv = torch.nn.Conv2d(3, channels, kernel, padding=kernel // 2)
    return lambda x: conv(x)


def slide(image, model, window, stride, batch_size=3, max_band_bytes=1 << 30):
    height, width = image.shape[1:]
    windows = SlidingWindows((height, width), window, stride, batch_size, 3, max_band_bytes)
    out = torch.full((3, height, width), float('nan'))
    calls = []

    def predict(batch):
        height, width = windows.window
        crops = [image[:, top : top + height, left : left + width] for top, left in batch]
        return model(torch.stack(crops))

    def finish_rows(top, left, scores):
        rows, columns = scores.shape[1:]
        calls.append((top, rows, left, columns))
        assert torch.isnan(out[:, top : top + rows, left : left + columns]).all()  # once each
        out[:, top : top + rows, left : left + columns] = scores

    with torch.no_grad():
        windows.run(predict, finish_rows)
    return out, calls, windows


def inner_edge_mask(windows, shape):
    """Pixels within REACH of a window edge that is not the image's edge."""
    near = np.zeros(shape, bool)
    for edges, axis, length in ((windows.tops, 0, shape[0]), (windows.lefts, 1, shape[1])):
        size = windows.window[axis]
        for edge in {e for s in edges for e in (s, s + size)} - {0, length}:
            index = [slice(None), slice(None)]
            index[axis] = slice(max(edge - REACH, 0), edge + REACH)
            near[tuple(index)] = True
    return near


@pytest.mark.parametrize('kernel', [1, 5])
def test_sliding_equals_whole_image_up_to_the_window_edges(kernel):
    generator = torch.Generator().manual_seed(0)
    image = torch.rand((3, 700, 1100), generator=generator)  # 0.77 MP, 8 x 12 windows
    model = conv_model(kernel=kernel)
    with torch.no_grad():
        whole = model(image[None])[0]
    slid, calls, windows = slide(image, model, window=(128, 128), stride=(86, 86))
    assert not torch.isnan(slid).any()
    tops = [call[0] for call in calls]
    assert tops == sorted(tops) and sum(call[1] for call in calls) == 700
    assert all(call[1] <= 128 for call in calls)  # one band of scores at a time
    difference = (slid - whole).abs().amax(0).numpy()
    if kernel == 1:
        assert difference.max() < 1e-5
    else:
        near = inner_edge_mask(windows, difference.shape)
        assert difference[~near].max() < 1e-5
        assert difference[near].max() > 1e-3  # the border effect is real, and blended down:
        assert difference.max() < 0.1 * whole.abs().max().item()  # measured: 0.042 of 1.18


def test_windows_larger_than_the_image_are_one_window():
    image = torch.rand((3, 50, 70))
    slid, calls, windows = slide(image, conv_model(kernel=5), window=(128, 128), stride=(64, 64))
    with torch.no_grad():
        assert torch.allclose(slid, conv_model(kernel=5)(image[None])[0], atol=1e-6)
    assert len(windows) == 1 and calls == [(0, 50, 0, 70)]


def test_a_twenty_megapixel_image_in_bands():
    """4000 x 5000 pixels through a pixel-wise model: equal to the whole image, and no band of
    scores taller than a window."""
    image = torch.rand((3, 4000, 5000), generator=torch.Generator().manual_seed(1))
    model = conv_model(kernel=1)
    slid, calls, _ = slide(image, model, window=(512, 512), stride=(384, 384), batch_size=8)
    with torch.no_grad():
        assert (slid - model(image[None])[0]).abs().max() < 1e-5
    assert all(call[1] <= 512 for call in calls) and sum(call[1] for call in calls) == 4000


def test_a_wide_image_in_stripes_is_the_same_within_the_byte_bound():
    """3 channels x 128 rows x 300 columns x 4 bytes: stripes of 300 columns over 1100."""
    image = torch.rand((3, 400, 1100), generator=torch.Generator().manual_seed(2))
    model = conv_model(kernel=5)
    whole_band, _, one = slide(image, model, window=(128, 128), stride=(86, 86))
    bound = 3 * 128 * 300 * 4
    striped, calls, windows = slide(image, model, (128, 128), (86, 86), max_band_bytes=bound)
    assert len(one.stripes) == 1 and windows.stripes == [
        (0, 300),
        (300, 600),
        (600, 900),
        (900, 1100),
    ]
    assert all(3 * 128 * columns * 4 <= bound for _, _, _, columns in calls)
    assert len(windows) > len(one)  # windows across a stripe's edge run once per stripe
    assert (striped - whole_band).abs().max() < 1e-5
