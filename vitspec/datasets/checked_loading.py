"""Loading transforms that fail on bad files with an error naming the file.

mmcv's loader reports an undecodable image without a reason (or as an AttributeError later),
and mmseg's annotation loader casts labels to uint8 (300 becomes 44) and passes labels beyond
the class range on, where they crash the loss without a file name or are dropped silently by
the IoU metric. These keep both files' paths in every error.

Images are decoded in their stored pixel order, EXIF orientation ignored, as their label maps,
depth maps and COCO annotations are (``image_orientation``).
"""

import mmcv
import numpy as np
from mmcv.transforms import LoadImageFromFile
from mmengine import fileio
from mmseg.datasets.transforms import LoadAnnotations
from mmseg.registry import TRANSFORMS

from vitspec.errors import DataFileError

from .image_orientation import report_orientation_once, stored_order_flag


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


@TRANSFORMS.register_module()
class CheckedLoadImageFromFile(LoadImageFromFile):
    """mmcv's LoadImageFromFile, raising DataFileError naming the file it cannot read.

    Decodes in the stored pixel order (``color_type`` 'color' is read as mmcv's
    'color_ignore_orientation'; see ``image_orientation``). Refuses, naming the image and its
    size:

    - a side shorter than ``min_size`` pixels (default 3). Below that the shipped pipelines
      fail without naming the file: the depth training crop (RegionCrop scales NYU's 427x565
      region to the image) leaves a 1-pixel side that RandomFlip + PackSegInputs cannot pack
      (2x2 images), or is empty (1-pixel sides). The segmentation and COCO pipelines resize
      a 1x1 image up and take it.
    - a long side more than ``max_aspect_ratio`` times the short one (default 64). A keep-ratio
      Resize shrinks the short side to ``short * target / long``, and cv2 fails when that rounds
      to 0: a 1x300 image in the demo segmentation pipeline (target 96-192), 1x1000 in the demo
      COCO one (160). At 64 the shortest target of the shipped configs (96) still leaves
      2 pixels; photographs, panoramas included, stay far below it.
    - a size other than the annotation's ``width`` x ``height`` where the dataset puts them
      in the sample (mmdet's COCO datasets do).
    """

    def __init__(self, *args, min_size: int = 3, max_aspect_ratio: float = 64, **kwargs):
        super().__init__(*args, **kwargs)
        self.min_size, self.max_aspect_ratio = min_size, max_aspect_ratio

    def transform(self, results: dict) -> dict:
        path = results['img_path']
        data = read_bytes(path, 'image', self.backend_args)
        flag = stored_order_flag(self.color_type, self.imdecode_backend)
        img = decode(data, path, 'image', flag, self.imdecode_backend)
        if img is None:
            raise DataFileError(f'cannot decode image {path} ({len(data)} bytes)')
        report_orientation_once(data, path)
        self.check_size(img.shape[:2], path, results)
        if self.to_float32:
            img = img.astype(np.float32)
        results.update(img=img, img_shape=img.shape[:2], ori_shape=img.shape[:2])
        return results

    def check_size(self, hw, path: str, results: dict) -> None:
        h, w = hw
        if min(h, w) < self.min_size:
            raise DataFileError(
                f'image {path} is {w}x{h}: a side is shorter than {self.min_size} pixels'
            )
        if max(h, w) > self.max_aspect_ratio * min(h, w):
            raise DataFileError(
                f'image {path} is {w}x{h}: its aspect ratio exceeds {self.max_aspect_ratio}'
            )
        expected = results.get('width'), results.get('height')
        if None not in expected and tuple(expected) != (w, h):
            raise DataFileError(
                f'image {path} is {w}x{h} but its annotation says {expected[0]}x{expected[1]}'
            )


@TRANSFORMS.register_module()
class CheckedLoadAnnotations(LoadAnnotations):
    """mmseg's LoadAnnotations that first checks the label file: it must exist, decode to one
    channel and hold only class ids ``0..num_classes-1`` (``1..num_classes`` plus the
    background 0 with ``reduce_zero_label``) or ``ignore_index``."""

    def __init__(self, num_classes: int, ignore_index: int = 255, **kwargs):
        super().__init__(**kwargs)
        self.num_classes = num_classes
        self.ignore_index = ignore_index

    def _load_seg_map(self, results: dict) -> None:
        path = results['seg_map_path']
        data = read_bytes(path, 'annotation', self.backend_args, image=results.get('img_path'))
        raw = decode(data, path, 'annotation', backend=self.imdecode_backend)
        if raw is None or not (raw.ndim == 2 or (raw.ndim == 3 and raw.shape[2] == 1)):
            desc = 'undecodable' if raw is None else f'of shape {raw.shape}'
            raise DataFileError(f'annotation {path} is not a single-channel label image ({desc})')
        image_hw = results.get('ori_shape')
        if image_hw is not None and tuple(raw.shape[:2]) != tuple(image_hw[:2]):
            raise DataFileError(
                f'annotation {path} is {raw.shape[1]}x{raw.shape[0]} but its image '
                f'{results.get("img_path")} is {image_hw[1]}x{image_hw[0]}'
            )
        self.check_labels(raw, path, results.get('reduce_zero_label', self.reduce_zero_label))
        super()._load_seg_map(results)

    def check_labels(self, raw: np.ndarray, path: str, reduce_zero_label: bool) -> None:
        low, high = (0, self.num_classes) if reduce_zero_label else (0, self.num_classes - 1)
        values = np.unique(raw)
        bad = values[((values < low) | (values > high)) & (values != self.ignore_index)]
        if bad.size:
            raise DataFileError(
                f'annotation {path} has label values {bad[:10].tolist()} outside {low}..{high} '
                f'(num_classes={self.num_classes}, reduce_zero_label={bool(reduce_zero_label)}, '
                f'ignore_index={self.ignore_index})'
            )
