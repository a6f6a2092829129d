"""Prediction on an image of any size in overlapping windows, blended.

Windows run in batches, row of windows by row of windows. Scores are accumulated, weighted by
a blend that falls towards each window's edges (where a window lacks context), only for the
rows the current row of windows covers: once the next row of windows starts below a row, no
later window touches it, and it is finished (``finish_rows``: argmax, or the depth itself) and
forgotten. Memory is one batch of windows plus one band of scores (channels x window height x
image width), whatever the image's height; the result may be a memory-mapped array.
"""

from typing import Callable, Iterator, List, Sequence, Tuple

import torch

Window = Tuple[int, int]  # (top, left)


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

    Args:
        image_size: (H, W).
        window: window size; a side longer than the image's is cut to it.
        stride: step between windows; smaller than ``window`` for an overlap.
        batch_size: windows per call of the model.
    """

    def __init__(self, image_size, window, stride, batch_size: int = 4):
        self.height, self.width = image_size
        self.window = (min(window[0], self.height), min(window[1], self.width))
        self.stride = (min(stride[0], self.window[0]), min(stride[1], self.window[1]))
        if min(self.stride) < 1:
            raise ValueError(f'stride {stride} must be positive')
        self.tops = window_starts(self.height, self.window[0], self.stride[0])
        self.lefts = window_starts(self.width, self.window[1], self.stride[1])
        self.batch_size = batch_size
        overlap = (self.window[0] - self.stride[0], self.window[1] - self.stride[1])
        self.weights = blend_weights(self.window, overlap)

    def __len__(self) -> int:
        return len(self.tops) * len(self.lefts)

    def batches(self, top: int) -> Iterator[List[Window]]:
        row = [(top, left) for left in self.lefts]
        for start in range(0, len(row), self.batch_size):
            yield row[start : start + self.batch_size]

    def run(
        self,
        predict: Callable[[Sequence[Window]], torch.Tensor],
        finish_rows: Callable[[int, torch.Tensor], None],
        channels: int,
        device='cpu',
        normalise: bool = True,
        on_windows: Callable[[int], None] = None,
    ) -> None:
        """``predict(windows)`` gives (B, channels, h, w) scores of the windows' pixels;
        ``finish_rows(top, scores)`` gets the blended (channels, rows, W) scores of image rows
        ``top:top + rows``, each row once, top to bottom. ``normalise=False`` leaves them
        weighted sums, not divided by the sum of the weights (an argmax does not need it).
        ``on_windows(n)`` is called after each batch of ``n`` windows (a progress bar)."""
        win_h, win_w = self.window
        scores = torch.zeros((channels, win_h, self.width), device=device)
        weight_sum = torch.zeros((win_h, self.width), device=device)
        weights = self.weights.to(device)
        band_top = 0
        for top in self.tops:
            if top > band_top:  # rows band_top..top are final: no later window reaches them
                done = top - band_top
                finish_rows(band_top, self._blended(scores, weight_sum, done, normalise))
                scores = torch.cat(
                    [scores[:, done:], scores.new_zeros(channels, done, self.width)], 1
                )
                weight_sum = torch.cat([weight_sum[done:], weight_sum.new_zeros(done, self.width)])
                band_top = top
            for windows in self.batches(top):
                out = predict(windows).float()
                for (_, left), window_scores in zip(windows, out):
                    scores[:, :, left : left + win_w].addcmul_(window_scores, weights)
                    weight_sum[:, left : left + win_w] += weights
                if on_windows is not None:
                    on_windows(len(windows))
        rows = self.height - band_top
        finish_rows(band_top, self._blended(scores, weight_sum, rows, normalise))

    @staticmethod
    def _blended(scores, weight_sum, rows, normalise):
        return scores[:, :rows] / weight_sum[:rows] if normalise else scores[:, :rows]
