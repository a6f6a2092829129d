"""Prediction on an image of any size in overlapping windows, blended.

Windows run in batches, row of windows by row of windows. Scores are accumulated, weighted by
a blend that falls towards each window's edges (where a window lacks context), only for the
rows the current row of windows covers: once the next row of windows starts below a row, no
later window touches it, and it is finished (``finish_rows``: argmax, or the depth itself) and
forgotten. Memory is one batch of windows plus one band of scores (channels x window height x
width), whatever the image's height; an image too wide for ``max_band_bytes`` goes in vertical
stripes, so whatever its width too. The result may be a memory-mapped array.
"""

from typing import Callable, List, Sequence, Tuple

import torch

from vitspec.errors import ConfigError

Window = Tuple[int, int]  # (top, left)
DEFAULT_BAND_BYTES = 1 << 30  # 1 GiB of float32 scores


def window_starts(length: int, window: int, stride: int) -> List[int]:
    """Starts of windows of ``window`` pixels every ``stride`` that cover ``length``; the
    last one ends at the edge (as mmseg's slide inference)."""
    if length <= window:
        return [0]
    starts = list(range(0, length - window, stride))
    return starts + [length - window]


def ramp(size: int, width: int) -> torch.Tensor:
    """1 in the middle, falling linearly to 1/width at both ends over ``width`` pixels."""
    index = torch.arange(size, dtype=torch.float32)
    distance = torch.minimum(index + 1, size - index)
    return torch.clamp(distance / max(width, 1), max=1.0)


def blend_weights(window: Tuple[int, int], overlap: Tuple[int, int]) -> torch.Tensor:
    """(h, w) weights: the product of one ramp per axis over the overlap. Every weight is
    positive, so a pixel only one window covers (at the image's edge) keeps its value."""
    return ramp(window[0], overlap[0])[:, None] * ramp(window[1], overlap[1])[None, :]


class SlidingWindows:
    """Windows of ``window`` (h, w) pixels every ``stride`` (h, w) over an ``image_size``.

    An image wider than one band of ``max_band_bytes`` of scores (``channels`` x window height
    x width x 4 bytes) is done in vertical stripes, each a band that narrow: a window that
    crosses a stripe's edge is predicted once for each stripe it reaches (the price of the
    bound), and each stripe keeps only its own columns of it, so the result is the same.

    Args:
        image_size: (H, W).
        window: window size; a side longer than the image's is cut to it.
        stride: step between windows; smaller than ``window`` for an overlap.
        batch_size: windows per call of the model.
        channels: score channels per pixel (classes, or 1 for depth).
        max_band_bytes: the most bytes of accumulated scores held at once (at least one
            window's width of them).
    """

    def __init__(
        self,
        image_size,
        window,
        stride,
        batch_size: int = 4,
        channels: int = 1,
        max_band_bytes: int = DEFAULT_BAND_BYTES,
    ):
        self.height, self.width = image_size
        self.window = (min(window[0], self.height), min(window[1], self.width))
        self.stride = (min(stride[0], self.window[0]), min(stride[1], self.window[1]))
        if min(self.stride) < 1:
            raise ConfigError(f'stride {stride} must be positive')
        self.tops = window_starts(self.height, self.window[0], self.stride[0])
        self.lefts = window_starts(self.width, self.window[1], self.stride[1])
        self.batch_size, self.channels = batch_size, channels
        overlap = (self.window[0] - self.stride[0], self.window[1] - self.stride[1])
        self.weights = blend_weights(self.window, overlap)
        column_bytes = channels * self.window[0] * 4
        stripe = max(self.window[1], max_band_bytes // column_bytes)
        edges = list(range(0, self.width, stripe)) + [self.width]
        self.stripes = list(zip(edges[:-1], edges[1:]))

    def lefts_in(self, stripe) -> List[int]:
        start, stop = stripe
        return [left for left in self.lefts if left < stop and left + self.window[1] > start]

    def __len__(self) -> int:
        """Window predictions, counting a window once for each stripe it reaches."""
        return len(self.tops) * sum(len(self.lefts_in(stripe)) for stripe in self.stripes)

    def run(
        self,
        predict: Callable[[Sequence[Window]], torch.Tensor],
        finish_rows: Callable[[int, int, torch.Tensor], None],
        device='cpu',
        normalise: bool = True,
        on_windows: Callable[[int], None] = None,
    ) -> None:
        """``predict(windows)`` gives (B, channels, h, w) scores of the windows' pixels;
        ``finish_rows(top, left, scores)`` gets the blended (channels, rows, columns) scores of
        the image's ``top:top + rows, left:left + columns``, each pixel once, each stripe top
        to bottom. ``normalise=False`` leaves them weighted sums, not divided by the sum of the
        weights (an argmax does not need it). ``on_windows(n)`` is called after each batch of
        ``n`` windows (a progress bar)."""
        for stripe in self.stripes:
            self._run_stripe(stripe, predict, finish_rows, device, normalise, on_windows)

    def _run_stripe(self, stripe, predict, finish_rows, device, normalise, on_windows):
        start, stop = stripe
        win_h, win_w = self.window
        scores = torch.zeros((self.channels, win_h, stop - start), device=device)
        weight_sum = torch.zeros((win_h, stop - start), device=device)
        weights = self.weights.to(device)
        lefts = self.lefts_in(stripe)
        band_top = 0
        for top in self.tops:
            if top > band_top:  # rows band_top..top are final: no later window reaches them
                done = top - band_top
                finish_rows(band_top, start, _blended(scores, weight_sum, done, normalise))
                scores = torch.cat([scores[:, done:], torch.zeros_like(scores[:, :done])], 1)
                weight_sum = torch.cat([weight_sum[done:], torch.zeros_like(weight_sum[:done])])
                band_top = top
            for first in range(0, len(lefts), self.batch_size):
                windows = [(top, left) for left in lefts[first : first + self.batch_size]]
                out = predict(windows).float()
                for (_, left), window_scores in zip(windows, out):
                    a, b = max(start, left), min(stop, left + win_w)  # image columns kept
                    kept = slice(a - left, b - left)
                    target = slice(a - start, b - start)
                    scores[:, :, target].addcmul_(window_scores[:, :, kept], weights[:, kept])
                    weight_sum[:, target] += weights[:, kept]
                if on_windows is not None:
                    on_windows(len(windows))
        rows = self.height - band_top
        finish_rows(band_top, start, _blended(scores, weight_sum, rows, normalise))


def _blended(scores, weight_sum, rows, normalise):
    return scores[:, :rows] / weight_sum[:rows] if normalise else scores[:, :rows]
