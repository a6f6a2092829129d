"""COCO panoptic PNGs: segment ids in RGB (id = R + 256 G + 256^2 B, 0 = VOID), read and
checked: every id of the image must be a segment of its JSON entry and the other way round.

The COCO panoptic format (Kirillov et al., "Panoptic Segmentation", CVPR 2019;
cocodataset/panopticapi ``utils.rgb2id``, which is not on PyPI). A pixel whose id has no
segment would be VOID (ignored) without a word, and a listed segment absent from the PNG a
target of nothing: both stop with a DataFileError naming the PNG. Used by the loader
(vitspec.datasets) and the panoptic metric (vitspec.evaluation).
"""

from typing import Iterable

import mmcv
import numpy as np
from mmengine.fileio import get

from vitspec.errors import DataFileError

VOID_ID = 0
MAX_LISTED = 10


def rgb2id(rgb: np.ndarray) -> np.ndarray:
    """Segment ids (H, W) int64 of an RGB (H, W, 3) panoptic PNG."""
    rgb = rgb.astype(np.int64)
    return rgb[..., 0] + 256 * rgb[..., 1] + 256 * 256 * rgb[..., 2]


def id2rgb(ids: np.ndarray) -> np.ndarray:
    """RGB (H, W, 3) uint8 of segment ids (H, W) below 256^3."""
    ids = np.asarray(ids, dtype=np.int64)
    return np.stack([ids % 256, ids // 256 % 256, ids // 65536 % 256], axis=-1).astype(np.uint8)


def read_panoptic_png(path: str, backend_args=None) -> np.ndarray:
    """Segment ids of the panoptic PNG at ``path``; a DataFileError names a file that is not an
    RGB image."""
    try:
        data = get(path, backend_args=backend_args)
    except FileNotFoundError as exc:
        raise DataFileError(f'panoptic PNG {path} does not exist') from exc
    return decode_panoptic_png(data, path)


def decode_panoptic_png(data: bytes, path: str) -> np.ndarray:
    """Segment ids of the panoptic PNG bytes ``data`` (read from ``path``, say a zip member);
    a DataFileError names a file that is not an RGB image."""
    rgb = mmcv.imfrombytes(data, flag='color', channel_order='rgb')
    if rgb is None or rgb.ndim != 3 or rgb.shape[2] != 3:
        raise DataFileError(f'panoptic PNG {path} is not an RGB image')
    return rgb2id(rgb)


def check_segment_ids(ids: np.ndarray, segment_ids: Iterable[int], path: str) -> None:
    """DataFileError naming ``path`` when the PNG's ids (VOID aside) and the JSON's segment
    ids of the image differ."""
    listed = {int(i) for i in segment_ids}
    present = {int(i) for i in np.unique(ids)} - {VOID_ID}
    unlisted = sorted(present - listed)
    if unlisted:
        raise DataFileError(
            f'panoptic PNG {path} has segment ids missing from the JSON: '
            f'{unlisted[:MAX_LISTED]}{" ..." if len(unlisted) > MAX_LISTED else ""} (JSON '
            f'segments of this image: {sorted(listed)[:MAX_LISTED]}); the PNG and the JSON do '
            'not describe the same segmentation'
        )
    absent = sorted(listed - present)
    if absent:
        raise DataFileError(
            f'panoptic PNG {path} lacks segments its JSON entry lists: '
            f'{absent[:MAX_LISTED]}{" ..." if len(absent) > MAX_LISTED else ""}'
        )
