"""The checks of one sample's files: every file a sample reads, read and judged in one function.

A bad file (missing, undecodable, of another size than its image, label values outside the
classes, depth in another unit, a panoptic PNG that does not match its JSON entry) stops with a
DataFileError naming it and the reason. mmseg's annotation loader casts labels to uint8 (300
becomes 44) and passes labels beyond the class range on, where they crash the loss without a
file name or are dropped silently by the IoU metric; mmcv's image loader takes a 1x300 image that
a keep-ratio resize then turns into a 0-pixel side.

``check_sample`` is the one place these checks live: the pipeline runs it through
``CheckSampleFiles`` (once per sample and run, ``check_record``), and the data check before a
run calls it on every sample. Images are decoded in their stored pixel order, EXIF orientation
ignored, as their label maps, depth maps and COCO annotations are (``image_orientation``).
"""

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import List, Optional, Tuple

import mmcv
import numpy as np
from mmengine import fileio

from vitspec.errors import ConfigError, DataFileError
from vitspec.fileio.panoptic_png import check_segment_ids, read_panoptic_png

from .depth_units import check_depth_unit
from .image_orientation import report_orientation_once, stored_order_flag

# The keys of a data info that name a file of the sample (mmseg's and mmdet's datasets).
FILE_KEYS = ('img_path', 'seg_map_path', 'depth_map_path')
# mmseg's LoadAnnotations decodes labels with pillow: palette PNGs (VOC) give their indices.
LABEL_BACKEND = 'pillow'


@dataclass(frozen=True)
class SampleChecks:
    """What a sample's files must satisfy.

    - ``num_classes``: label values must be class ids ``0..num_classes-1`` (``1..num_classes``
      plus the background 0 with ``reduce_zero_label``) or ``ignore_index``; None: not checked.
    - ``depth_scale``: the divisor that turns a depth PNG into metres (1000 for NYU, 256 for
      KITTI); ``depth_range`` (lo, hi) metres: the unit check of ``depth_units`` (None: none).
    - ``min_size``: the shortest side an image may have. Below 3 pixels the shipped pipelines fail
      without naming the file: the depth training crop (RegionCrop scales NYU's 427x565 region to
      the image) leaves a 1-pixel side that RandomFlip + PackSegInputs cannot pack (2x2 images),
      or is empty (1-pixel sides).
    - ``max_aspect_ratio``: the most the long side may exceed the short one. A keep-ratio Resize
      shrinks the short side to ``short * target / long``, and cv2 fails when that rounds to 0:
      a 1x300 image in the demo segmentation pipeline (target 96-192), 1x1000 in the demo COCO one
      (160). At 64 the shortest target of the shipped configs (96) still leaves 2 pixels;
      photographs, panoramas included, stay far below it.
    - ``color_type``, ``imdecode_backend``: how the pipeline's image loader decodes (mmcv's
      LoadImageFromFile options).
    """

    num_classes: Optional[int] = None
    reduce_zero_label: bool = False
    ignore_index: int = 255
    depth_scale: Optional[float] = None
    depth_range: Optional[Tuple[float, float]] = None
    min_size: int = 3
    max_aspect_ratio: float = 64
    color_type: str = 'color'
    imdecode_backend: str = 'cv2'

    def __post_init__(self):
        if self.depth_range is not None:
            lo, hi = self.depth_range
            if not 0 <= lo < hi:
                raise ConfigError(
                    'depth_range (the unit check) must be (lo, hi) metres with 0 <= lo < hi, '
                    f'got {self.depth_range}'
                )
            object.__setattr__(self, 'depth_range', (float(lo), float(hi)))
            if self.depth_scale is None:
                raise ConfigError('depth_range needs depth_scale: the unit the PNGs are in')
        if self.num_classes is not None and self.num_classes < 1:
            raise ConfigError(f'num_classes must be positive, got {self.num_classes}')
        text = json.dumps(dataclasses.asdict(self), sort_keys=True)
        # not a field: computed once, as every read of a sample asks for it
        object.__setattr__(self, '_key', hashlib.sha1(text.encode()).hexdigest()[:12])

    def key(self) -> str:
        """A short digest of the settings: samples checked under other settings are not taken."""
        return self._key


@dataclass
class SampleStats:
    """What the checks saw of one sample. ``class_pixels``: pixels per class of its label map
    (class ids after ``reduce_zero_label``; ignore and background left out; None when the checks
    know no ``num_classes``), or, for COCO instances, the number of instances per class; None
    when the sample has neither. ``image_hw``: the stored image's height and width."""

    class_pixels: Optional[np.ndarray]
    image_hw: Tuple[int, int]


def sample_files(info: dict) -> List[str]:
    """The files the sample ``info`` (a dataset's data info) reads."""
    return [info[k] for k in FILE_KEYS if isinstance(info.get(k), str)]


def check_sample(info: dict, checks: SampleChecks) -> SampleStats:
    """Read every file of the sample ``info`` and apply every check; DataFileError names the bad
    file and why. Returns what was seen (SampleStats)."""
    image_path = info['img_path']
    image_hw = check_image(image_path, checks, info.get('width'), info.get('height'))
    class_pixels = None
    if info.get('segments_info') is not None and info.get('seg_map_path'):
        class_pixels = check_panoptic(info, image_hw, checks)
    elif info.get('seg_map_path'):
        reduce_zero_label = info.get('reduce_zero_label', checks.reduce_zero_label)
        class_pixels = check_label(
            info['seg_map_path'], image_path, image_hw, checks, reduce_zero_label
        )
    elif info.get('instances') is not None:
        labels = np.asarray([i['bbox_label'] for i in info['instances'] if 'bbox_label' in i])
        class_pixels = np.bincount(labels.astype(np.int64), minlength=checks.num_classes or 0)
    if info.get('depth_map_path'):
        check_depth(info['depth_map_path'], image_path, image_hw, checks)
    return SampleStats(class_pixels=class_pixels, image_hw=image_hw)


def read_bytes(path: str, what: str, backend_args=None, **context) -> bytes:
    try:
        return fileio.get(path, backend_args=backend_args)
    except FileNotFoundError as exc:
        raise DataFileError(f'{what} not found: {path}{_context(context)}') from exc


def decode(data: bytes, path: str, what: str, flag: str = 'unchanged', backend=None):
    """mmcv.imfrombytes, with decoder failures (backends raise different types for corrupt
    data) turned into a DataFileError naming the file. Returns None where mmcv does."""
    try:
        return mmcv.imfrombytes(data, flag=flag, backend=backend)
    except Exception as exc:
        raise DataFileError(f'cannot decode {what} {path}: {exc}') from exc


def _context(context: dict) -> str:
    return ''.join(f' ({k}: {v})' for k, v in context.items() if v)


def check_image(path: str, checks: SampleChecks, width=None, height=None) -> Tuple[int, int]:
    """Decode the image as the pipeline does; check its sides, aspect ratio and its size against
    the annotation's ``width`` x ``height`` where the dataset gives them (mmdet's COCO datasets).
    Returns (height, width)."""
    data = read_bytes(path, 'image')
    flag = stored_order_flag(checks.color_type, checks.imdecode_backend)
    img = decode(data, path, 'image', flag, checks.imdecode_backend)
    if img is None:
        raise DataFileError(f'cannot decode image {path} ({len(data)} bytes)')
    report_orientation_once(data, path)
    h, w = img.shape[:2]
    if min(h, w) < checks.min_size:
        raise DataFileError(
            f'image {path} is {w}x{h}: a side is shorter than {checks.min_size} pixels'
        )
    if max(h, w) > checks.max_aspect_ratio * min(h, w):
        raise DataFileError(
            f'image {path} is {w}x{h}: its aspect ratio exceeds {checks.max_aspect_ratio:g}'
        )
    if width is not None and height is not None and (width, height) != (w, h):
        raise DataFileError(f'image {path} is {w}x{h} but its annotation says {width}x{height}')
    return h, w


def check_label(
    path: str, image_path: str, image_hw, checks: SampleChecks, reduce_zero_label: bool
) -> Optional[np.ndarray]:
    """The label map must exist, decode to one channel of the image's size and hold only
    classes or ignore. Returns its pixels per class (None without ``num_classes``)."""
    data = read_bytes(path, 'annotation', image=image_path)
    raw = decode(data, path, 'annotation', backend=LABEL_BACKEND)
    if raw is None or not (raw.ndim == 2 or (raw.ndim == 3 and raw.shape[2] == 1)):
        desc = 'undecodable' if raw is None else f'of shape {raw.shape}'
        raise DataFileError(f'annotation {path} is not a single-channel label image ({desc})')
    if tuple(raw.shape[:2]) != tuple(image_hw):
        raise DataFileError(
            f'annotation {path} is {raw.shape[1]}x{raw.shape[0]} but its image '
            f'{image_path} is {image_hw[1]}x{image_hw[0]}'
        )
    if checks.num_classes is None:
        return None
    return label_class_pixels(raw, path, checks, reduce_zero_label)


def label_class_pixels(
    raw: np.ndarray, path: str, checks: SampleChecks, reduce_zero_label: bool
) -> np.ndarray:
    """Pixels per class of a label map; DataFileError naming ``path`` for a value that is
    neither a class nor ``ignore_index``."""
    n = checks.num_classes
    low, high = (0, n) if reduce_zero_label else (0, n - 1)
    if raw.dtype.kind not in 'ui':
        raw = raw.astype(np.int64)
    values = raw.ravel()
    if values.size and values.min() < 0:
        bad = np.unique(values[values < 0])
    else:
        counts = np.bincount(values, minlength=max(high + 1, checks.ignore_index + 1))
        present = np.flatnonzero(counts)
        bad = present[(present > high) & (present != checks.ignore_index)]
    if bad.size:
        raise DataFileError(
            f'annotation {path} has label values {bad[:10].tolist()} outside {low}..{high} '
            f'(num_classes={n}, reduce_zero_label={bool(reduce_zero_label)}, '
            f'ignore_index={checks.ignore_index})'
        )
    return counts[1 : n + 1].copy() if reduce_zero_label else counts[:n].copy()


def check_depth(path: str, image_path: str, image_hw, checks: SampleChecks) -> None:
    """The depth map must be a single-channel 16-bit PNG of the image's size, in the unit
    ``depth_scale`` says (``depth_range``)."""
    data = read_bytes(path, 'depth map', image=image_path)
    raw = decode(data, path, 'depth map', backend='cv2')
    if raw is None or raw.ndim != 2 or raw.dtype != np.uint16:
        desc = 'undecodable' if raw is None else f'{raw.dtype} with shape {raw.shape}'
        raise DataFileError(f'depth map {path} must be a single-channel 16-bit PNG, got {desc}')
    if raw.shape != tuple(image_hw):
        raise DataFileError(
            f'depth map {path} is {raw.shape[1]}x{raw.shape[0]} but its '
            f'image {image_path} is {image_hw[1]}x{image_hw[0]}'
        )
    if checks.depth_range is not None:
        check_depth_unit(raw, checks.depth_scale, checks.depth_range, path)


def check_panoptic(info: dict, image_hw, checks: SampleChecks) -> Optional[np.ndarray]:
    """The panoptic PNG's segment ids must be its JSON entry's segments, its size the image's.
    Returns pixels per class of the segments of chosen categories."""
    path, segments = info['seg_map_path'], info['segments_info']
    ids = read_panoptic_png(path)
    check_segment_ids(ids, (s['id'] for s in segments), path)
    if ids.shape != tuple(image_hw):
        raise DataFileError(
            f'panoptic PNG {path} is {ids.shape[1]}x{ids.shape[0]}, its image '
            f'{image_hw[1]}x{image_hw[0]}'
        )
    if not checks.num_classes:
        return None
    segment_ids, pixels = np.unique(ids, return_counts=True)
    pixels_of = dict(zip(segment_ids.tolist(), pixels.tolist()))
    class_pixels = np.zeros(checks.num_classes, np.int64)
    for segment in segments:
        label = segment.get('category')
        if label is not None and 0 <= label < checks.num_classes:
            class_pixels[label] += pixels_of.get(segment['id'], 0)
    return class_pixels
