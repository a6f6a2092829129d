"""Which images a user means, and reading one of them as the model expects.

Inputs are image files, folders (not recursive), glob patterns, or text files listing one path
per line. A user's photo is shown upright by every viewer when its EXIF orientation tag is
applied, so prediction happens on the oriented pixels and the outputs are written at that size.
(Training reads images in their stored order instead: their labels describe the stored pixels,
see datasets/image_orientation.py.)
"""

import glob
import os.path as osp
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, List, NamedTuple

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from vitspec.errors import BadImage, DataFileError

IMAGE_SUFFIXES = frozenset(
    {'.jpg', '.jpeg', '.png', '.bmp', '.tif', '.tiff', '.webp', '.ppm', '.pgm'}
)
LIST_SUFFIXES = frozenset({'.txt', '.lst'})
# Modes PIL opens that map to 8-bit RGB without a choice being made for the user.
EIGHT_BIT_MODES = frozenset({'RGB', 'L', 'P', 'YCbCr'})


class ImageInput(NamedTuple):
    path: Path
    bgr: np.ndarray  # (H, W, 3) uint8, upright (EXIF orientation applied)


def is_image(path: Path) -> bool:
    return path.suffix.lower() in IMAGE_SUFFIXES


def find_images(inputs: Iterable[str]) -> List[Path]:
    """The image files named by ``inputs``, in the given order, each once.

    Raises DataFileError for an input that names nothing: a missing path, a pattern that
    matches no image, a folder or list without images."""
    found, seen = [], set()
    for spec in inputs:
        for path in _expand(str(spec)):
            key = osp.realpath(path)
            if key not in seen:
                seen.add(key)
                found.append(path)
    if not found:
        raise DataFileError(f'no images in {", ".join(map(str, inputs)) or "(no inputs)"}')
    return found


def _expand(spec: str) -> List[Path]:
    path = Path(spec).expanduser()
    if path.is_dir():
        images = sorted(p for p in path.iterdir() if p.is_file() and is_image(p))
        if not images:
            suffixes = ', '.join(sorted(IMAGE_SUFFIXES))
            raise DataFileError(f'folder {spec} holds no images (files ending in {suffixes})')
        return images
    if path.is_file():
        return _listed(path) if path.suffix.lower() in LIST_SUFFIXES else [path]
    if glob.has_magic(spec):
        images = sorted(Path(p) for p in glob.glob(osp.expanduser(spec)) if is_image(Path(p)))
        if not images:
            raise DataFileError(f'pattern {spec} matches no image files')
        return images
    raise DataFileError(f'input {spec} does not exist')


def _listed(list_file: Path) -> List[Path]:
    """The paths of a text file, one a line; relative ones are relative to the file's folder."""
    lines = [line.strip() for line in list_file.read_text().splitlines()]
    paths = [list_file.parent / line for line in lines if line and not line.startswith('#')]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise DataFileError(
            f'{list_file} lists {len(missing)} path(s) that are not files: {", ".join(missing[:5])}'
        )
    if not paths:
        raise DataFileError(f'{list_file} lists no images')
    return paths


def read_image(path: Path, huge: bool = False) -> ImageInput:
    """The image at ``path`` as upright 8-bit BGR (mmcv's channel order), or BadImage saying
    why not. Images above PIL's decompression-bomb limit (about 179 megapixels) are refused
    unless ``huge`` (for sliding-window prediction, which is meant for them)."""
    path = Path(path)
    if path.stat().st_size == 0:
        raise BadImage(f'{path}: empty file (0 bytes)')
    try:
        with pixel_limit_lifted(huge), warnings.catch_warnings():
            warnings.simplefilter('ignore', Image.DecompressionBombWarning)
            with Image.open(path) as img:
                img.load()
                upright = ImageOps.exif_transpose(img)
    except Image.DecompressionBombError as exc:
        raise BadImage(f'{path}: {exc}; predict it with --slide (slide=...)') from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise BadImage(f'{path}: cannot decode it as an image ({exc})') from None
    _check_mode(upright, path)
    if img.format == 'PNG' and png_bit_depth(path) == 16:  # PIL reads it as 8-bit 'RGB'
        raise BadImage(
            f'{path}: 16-bit RGB PNG; the model takes 8-bit RGB: scale it to 0-255 yourself'
        )
    if min(upright.size) == 0:
        raise BadImage(f'{path}: image of size {upright.size[0]}x{upright.size[1]}')
    rgb = np.asarray(upright.convert('RGB'))
    return ImageInput(path, np.ascontiguousarray(rgb[..., ::-1]))


@contextmanager
def pixel_limit_lifted(lifted: bool):
    limit = Image.MAX_IMAGE_PIXELS
    if lifted:
        Image.MAX_IMAGE_PIXELS = None
    try:
        yield
    finally:
        Image.MAX_IMAGE_PIXELS = limit


def png_bit_depth(path: Path) -> int:
    """Bits per sample of a PNG, from its header (IHDR's byte 24 of the file)."""
    with open(path, 'rb') as f:
        header = f.read(25)
    return header[24] if len(header) == 25 else 8


def _check_mode(img: Image.Image, path: Path) -> None:
    mode = img.mode
    if mode in EIGHT_BIT_MODES:
        return
    if mode in ('RGBA', 'LA', 'PA', 'RGBa', 'La'):
        raise BadImage(
            f'{path}: {len(mode)}-channel image with transparency (mode {mode}); the model '
            f'takes 3 channels: save it without the alpha channel (e.g. flattened on a '
            f'background)'
        )
    if mode == 'CMYK':
        raise BadImage(f'{path}: CMYK image; convert it to RGB (the model was trained on RGB)')
    if mode.startswith(('I;16', 'I', 'F')):
        raise BadImage(
            f'{path}: 16-bit or floating-point image (mode {mode}); the model takes 8-bit '
            f'RGB: scale it to 0-255 yourself (how depends on what its values mean)'
        )
    raise BadImage(f'{path}: image mode {mode} is not 8-bit RGB or grey')
