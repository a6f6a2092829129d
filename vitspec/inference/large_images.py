"""A segmenter or a depth model on an image of any size, in overlapping windows (sliding.py).

The windows see the image at its own pixel scale (the test pipeline's resize is not applied:
a 40-megapixel scan resized to the training size would lose what the user scanned it for).
Each window is normalised by the model's data preprocessor and run through the model's
``encode_decode``, which gives scores at the window's size.
"""

from typing import List, Optional, Sequence, Tuple

import numpy as np
import torch
from tqdm import tqdm

from vitspec.errors import ConfigError

from .model_loading import DEPTH, SEGMENTATION, LoadedModel
from .prediction import Predictor
from .sliding import DEFAULT_BAND_BYTES, SlidingWindows

DEFAULT_OVERLAP = 1 / 3
MAX_OVERLAP = 0.9  # beyond it, each pixel lies in 100 windows or more: a scan runs for days


def check_slide_settings(
    window=None, overlap: float = DEFAULT_OVERLAP, batch_size: int = 1
) -> None:
    """ConfigError for sliding-window settings that cannot run as meant: a window side
    below 1 pixel, an overlap outside [0, 0.9], fewer than one window a batch."""
    if window is not None and (len(window) != 2 or min(window) < 1):
        raise ConfigError(f'--window {window}: give the window as H W, each 1 pixel or more')
    if not 0 <= overlap <= MAX_OVERLAP:
        raise ConfigError(
            f'--overlap {overlap:g}: the fraction of a window its neighbour overlaps, from 0 to '
            f'{MAX_OVERLAP} (default {DEFAULT_OVERLAP:.3f})'
        )
    if batch_size < 1:
        raise ConfigError(f'--batch {batch_size}: give 1 image (or window) per forward or more')


def default_window(cfg) -> Tuple[int, int]:
    """The model's own test crop, else its training crop, else its backbone's image size."""
    test_cfg = cfg.model.get('test_cfg') or {}
    size = test_cfg.get('crop_size') or cfg.get('crop_size')
    if size is None:
        size = cfg.model.get('backbone', {}).get('img_size', 512)
    return (size, size) if isinstance(size, int) else tuple(size)


def class_count(model) -> int:
    """The channels of a segmenter's scores: its own ``out_channels`` (EoMT) or its decode
    head's (mmseg's segmentors)."""
    count = getattr(model, 'out_channels', None)
    return count if count is not None else model.decode_head.out_channels


def window_predictor(predictor: Predictor, bgr: np.ndarray, models=None):
    """``predict(windows)`` for SlidingWindows: (B, C, h, w) scores of the windows of ``bgr``,
    C the classes of a segmenter (raw scores, as mmseg blends them) or 1 for depth. ``models``
    (default: the predictor's own) all read the input ``predictor``'s model prepares, and their
    scores are stacked along C (several heads on one shared backbone: one backbone run)."""
    source = predictor.loaded.model
    models = [source] if models is None else list(models)
    for model in models:
        if not hasattr(model, 'encode_decode'):
            raise NotImplementedError(f'{type(model).__name__} has no encode_decode to slide with')

    def predict(windows, size):
        crops = [
            torch.from_numpy(bgr[top : top + size[0], left : left + size[1]].copy())
            .permute(2, 0, 1)
            .to(predictor.device)
            for top, left in windows
        ]
        data = source.data_preprocessor(dict(inputs=crops), False)
        inputs = data['inputs']
        metas = [dict(img_shape=tuple(inputs.shape[2:]), ori_shape=size) for _ in crops]
        for meta in metas:
            meta['pad_shape'] = meta['img_shape']
        with torch.no_grad(), predictor.precision():
            scores = torch.cat([model.encode_decode(inputs, metas) for model in models], dim=1)
        return scores[:, :, : size[0], : size[1]]  # the preprocessor's padding off

    return predict


def output_channels(loaded: LoadedModel) -> Tuple[int, type]:
    """Score channels a slide blends for ``loaded`` and the dtype of its result."""
    if loaded.task == SEGMENTATION:
        channels = class_count(loaded.model)
        return channels, np.uint8 if channels <= 256 else np.int32
    if loaded.task == DEPTH:
        return 1, np.float32
    raise NotImplementedError(f'sliding-window prediction of {loaded.task} models')


def slide_predict(
    predictor: Predictor,
    bgr: np.ndarray,
    window: Optional[Tuple[int, int]] = None,
    overlap: float = DEFAULT_OVERLAP,
    batch_size: int = 4,
    out: Optional[np.ndarray] = None,
    progress: bool = False,
    max_band_bytes: int = DEFAULT_BAND_BYTES,
) -> np.ndarray:
    """The (H, W) class indices (segmentation) or depth in metres (depth) of ``bgr`` (H, W, 3),
    predicted in windows (default: the model's crop) overlapping by ``overlap`` of a window.
    ``out`` may be a preallocated (e.g. ``np.lib.format.open_memmap``) (H, W) array.
    ``progress``: a progress bar of the windows. ``max_band_bytes``: the most bytes of scores
    held at once (SlidingWindows)."""
    options = dict(batch_size=batch_size, progress=progress, max_band_bytes=max_band_bytes)
    outs = None if out is None else [out]
    return slide_predict_heads(
        predictor, [predictor.loaded], bgr, window, overlap, outs, **options
    )[0]


def slide_predict_heads(
    predictor: Predictor,
    heads: Sequence[LoadedModel],
    bgr: np.ndarray,
    window: Optional[Tuple[int, int]] = None,
    overlap: float = DEFAULT_OVERLAP,
    outs: Optional[Sequence[np.ndarray]] = None,
    batch_size: int = 4,
    progress: bool = False,
    max_band_bytes: int = DEFAULT_BAND_BYTES,
) -> List[np.ndarray]:
    """``slide_predict`` for several ``heads`` on the input ``predictor`` prepares: each window
    batch is prepared once and each head predicts on it (on a shared backbone, one backbone
    run); one result per head. The window defaults to ``predictor``'s model's crop."""
    check_slide_settings(window, overlap, batch_size)
    window = window or default_window(predictor.loaded.cfg)
    stride = tuple(max(1, round(side * (1 - overlap))) for side in window)
    kinds = [output_channels(head) for head in heads]
    offsets = np.cumsum([0] + [channels for channels, _ in kinds]).tolist()
    windows = SlidingWindows(bgr.shape[:2], window, stride, batch_size, offsets[-1], max_band_bytes)
    if outs is None:
        outs = [np.empty(bgr.shape[:2], dtype) for _, dtype in kinds]
    run_window = window_predictor(predictor, bgr, [head.model for head in heads])

    def finish_rows(top, left, scores):
        for head, out, start, stop in zip(heads, outs, offsets, offsets[1:]):
            part = scores[start:stop]
            rows = part.argmax(0) if head.task == SEGMENTATION else part[0]
            out[top : top + rows.shape[0], left : left + rows.shape[1]] = rows.cpu().numpy()

    with tqdm(total=len(windows), unit='window', disable=not progress, leave=False) as bar:
        windows.run(
            lambda batch: run_window(batch, windows.window),
            finish_rows,
            predictor.device,
            # the argmax of a weighted sum is the same: segmentation alone needs no division
            normalise=any(head.task != SEGMENTATION for head in heads),
            on_windows=bar.update,
        )
    return outs
