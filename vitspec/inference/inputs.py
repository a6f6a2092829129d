"""Which images a user means, and reading one of them as the model expects.

Inputs are image files, folders (not recursive), glob patterns, or text files listing one path
per line; which files are images, and which images the model can take, is decided by their
content (vitspec/fileio/images.py, the rule every tool that takes a user's images follows). A
user's photo is shown upright by every viewer when its EXIF orientation tag is applied, so
prediction happens on the oriented pixels and the outputs are written at that size. (Training
reads images in their stored order instead: their labels describe the stored pixels, see
datasets/image_orientation.py.)
"""

from pathlib import Path
from typing import Callable, Iterable, List, NamedTuple

import numpy as np

from vitspec.errors import BadImage
from vitspec.fileio.images import list_images, print_skipped, read_rgb

__all__ = ['BadImage', 'ImageInput', 'find_images', 'read_image']


class ImageInput(NamedTuple):
    path: Path
    bgr: np.ndarray  # (H, W, 3) uint8, upright (EXIF orientation applied)


def find_images(
    inputs: Iterable[str], on_skip: Callable[[Path, str], None] = print_skipped
) -> List[Path]:
    """The image files named by ``inputs``, in the given order, each once; each file of a
    folder or pattern that is not an image is passed to ``on_skip`` (default: printed with the
    reason). Raises DataFileError for an input that names nothing."""
    return list_images(inputs, on_skip)


def read_image(path: Path, huge: bool = False) -> ImageInput:
    """The image at ``path`` as upright 8-bit BGR (mmcv's channel order), or BadImage saying
    why not. Images above PIL's decompression-bomb limit (about 179 megapixels) are refused
    unless ``huge`` (for sliding-window prediction, which is meant for them)."""
    rgb = read_rgb(path, huge=huge)
    return ImageInput(Path(path), np.ascontiguousarray(rgb[..., ::-1]))
