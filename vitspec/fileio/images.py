"""A user's image files: which files are images, and reading one as upright 8-bit RGB.

One rule for every tool that takes a user's images (tools/infer.py, the analysis tools), by a
file's content, never by its name:
- a file of a folder or pattern is an image when PIL identifies it (any suffix: .gif, .jfif,
  none), or when it has a suffix of a format PIL reads (a broken photo is then refused when it
  is read, with the reason); every other file is skipped and named with the reason;
- an image is read when it holds one picture of 8-bit samples in RGB, grey or palette colours;
  16-bit and floating-point samples are refused whatever the format (PIL reduces some of them to
  8 bits, others not, and how to scale them depends on what the values mean), and so are images
  of several frames (a multi-page TIFF, an animated GIF), CMYK, and images with transparent
  pixels (an alpha channel and a PNG/GIF transparency entry alike: the colour under a transparent
  pixel is not what a viewer shows). An alpha channel or transparency entry that leaves every
  pixel opaque changes nothing and is read;
- the EXIF orientation is applied: a photo is read as every viewer shows it.
"""

import glob
import os.path as osp
import re
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, List, Optional

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from vitspec.errors import BadImage, DataFileError

LIST_SUFFIXES = frozenset({'.txt', '.lst'})
# Modes PIL opens that map to 8-bit RGB without a choice being made for the user.
EIGHT_BIT_MODES = frozenset({'RGB', 'L', 'P', 'YCbCr'})
ALPHA_MODES = frozenset({'RGBA', 'LA', 'PA', 'RGBa', 'La'})
# PIL's raw modes of 16-bit samples end in ';16' and a byte order ('RGB;16B', 'I;16N'); BMP's
# 'BGR;16' (5-6-5 bits in 16-bit pixels) has none and is 8-bit once decoded.
SIXTEEN_BIT_RAWMODE = re.compile(r';16[BLN]$')
# MPO (phone and stereo cameras) stores the photo first and previews or other views after it
# (CIPA DC-007): its first frame is the picture a viewer shows.
FIRST_FRAME_IS_THE_IMAGE = frozenset({'MPO'})


def image_suffixes() -> frozenset:
    """The file name suffixes of the formats PIL can open (its plugins register them)."""
    return frozenset(s for s, fmt in Image.registered_extensions().items() if fmt in Image.OPEN)


def print_skipped(path: Path, why: str) -> None:
    print(f'skipped {path}: {why}', file=sys.stderr, flush=True)


def list_images(
    inputs: Iterable[str], on_skip: Callable[[Path, str], None] = print_skipped
) -> List[Path]:
    """The image files named by ``inputs``, in the given order, each once.

    Inputs are image files, folders (not recursive), glob patterns, or text files (.txt, .lst)
    listing one path per line (relative to the file's folder). A file named directly or listed
    is taken as it is (reading it says what is wrong with it); of a folder or pattern, every file
    that is not an image by its content is passed to ``on_skip`` with the reason (by default
    printed). Raises DataFileError for an input that names nothing: a missing path, a pattern,
    folder or list without images."""
    inputs = [str(spec) for spec in inputs]
    found, seen = [], set()
    for spec in inputs:
        for path in _expand(spec, on_skip):
            key = osp.realpath(path)
            if key not in seen:
                seen.add(key)
                found.append(path)
    if not found:
        raise DataFileError(f'no images in {", ".join(inputs) or "(no inputs)"}')
    return found


def not_an_image(path: Path) -> Optional[str]:
    """Why the file at ``path`` is not an image PIL decodes (from its first bytes), or None."""
    try:
        if path.stat().st_size == 0:
            return 'empty file (0 bytes)'
        with pixel_limit_lifted(True), warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with Image.open(path):
                return None
    except UnidentifiedImageError:
        return 'not an image (no format PIL reads)'
    except (OSError, SyntaxError, ValueError) as exc:
        return f'cannot be read as an image ({exc})'


def _expand(spec: str, on_skip) -> List[Path]:
    path = Path(spec).expanduser()
    if path.is_dir():
        return _images_of(sorted(path.iterdir()), f'folder {spec}', on_skip)
    if path.is_file():
        if path.suffix.lower() in LIST_SUFFIXES and not_an_image(path):
            return _listed(path)
        return [path]
    if glob.has_magic(spec):
        matches = sorted(Path(p) for p in glob.glob(osp.expanduser(spec)))
        return _images_of(matches, f'pattern {spec}', on_skip)
    raise DataFileError(f'input {spec} does not exist')


def _images_of(paths: List[Path], what: str, on_skip) -> List[Path]:
    images, skipped, suffixes = [], 0, image_suffixes()
    for path in paths:
        if path.is_dir():
            why = 'a folder (folders are not searched: name it as an input)'
        elif not path.is_file():
            why = 'not a regular file'
        else:
            why = None if path.suffix.lower() in suffixes else not_an_image(path)
        if why:
            on_skip(path, why)
            skipped += 1
        else:
            images.append(path)
    if not images:
        raise DataFileError(
            f'{what} holds no images'
            + (f' (its {skipped} entries were skipped, each named above)' if skipped else '')
        )
    return images


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


def read_rgb(path, huge: bool = False) -> np.ndarray:
    """The image at ``path`` as upright 8-bit RGB, (H, W, 3) uint8, or BadImage saying why not
    (the rules of this module's docstring). Images above PIL's decompression-bomb limit (about
    179 megapixels) are refused unless ``huge`` (sliding-window prediction is meant for them)."""
    path = Path(path)
    if path.stat().st_size == 0:
        raise BadImage(f'{path}: empty file (0 bytes)')
    try:
        with pixel_limit_lifted(huge), warnings.catch_warnings():
            warnings.simplefilter('ignore', Image.DecompressionBombWarning)
            with Image.open(path) as img:
                _check_frames(img, path)
                _check_depth(img, path)
                img.load()
                upright = ImageOps.exif_transpose(img)
    except BadImage:
        raise
    except Image.DecompressionBombError as exc:
        raise BadImage(f'{path}: {exc}; predict it with --slide (slide=...)') from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise BadImage(f'{path}: cannot decode it as an image ({exc})') from None
    _check_mode(upright, path)
    if min(upright.size) == 0:
        raise BadImage(f'{path}: image of size {upright.size[0]}x{upright.size[1]}')
    return np.asarray(upright.convert('RGB'))


@contextmanager
def pixel_limit_lifted(lifted: bool):
    limit = Image.MAX_IMAGE_PIXELS
    if lifted:
        Image.MAX_IMAGE_PIXELS = None
    try:
        yield
    finally:
        Image.MAX_IMAGE_PIXELS = limit


def sample_bits(img: Image.Image) -> int:
    """Bits per sample as stored in the file, read from the header PIL parsed (not decoded):
    TIFF's BitsPerSample, PPM/PGM's maximum value, else the raw mode PIL decodes the pixels
    from. 8 where none of these says more."""
    tiff_bits = getattr(img, 'tag_v2', {}).get(258) if img.format == 'TIFF' else None
    if tiff_bits:
        return max(tiff_bits) if isinstance(tiff_bits, tuple) else int(tiff_bits)
    for tile in getattr(img, 'tile', None) or ():
        args = tile.args if isinstance(tile.args, tuple) else (tile.args,)
        if tile.codec_name == 'ppm' and len(args) > 1 and isinstance(args[1], int):
            return 16 if args[1] > 255 else 8  # the maximum sample value of the header
        if args and isinstance(args[0], str) and SIXTEEN_BIT_RAWMODE.search(args[0]):
            return 16
    return 8


def _check_frames(img: Image.Image, path: Path) -> None:
    frames = getattr(img, 'n_frames', 1)
    if frames > 1 and img.format not in FIRST_FRAME_IS_THE_IMAGE:
        raise BadImage(
            f'{path}: {img.format} image of {frames} frames (pages or animation); the model '
            f'takes one picture: save the page or frame you mean as its own file'
        )


def _check_depth(img: Image.Image, path: Path) -> None:
    bits = sample_bits(img)
    if bits > 8:
        raise BadImage(
            f'{path}: {bits}-bit {img.mode} {img.format} image; the model takes 8-bit RGB: '
            f'scale it to 0-255 yourself (how depends on what its values mean)'
        )


def _check_mode(img: Image.Image, path: Path) -> None:
    mode = img.mode
    if mode in ALPHA_MODES or 'transparency' in img.info:
        transparent = int((np.asarray(img.convert('RGBA'))[..., 3] < 255).sum())
        if transparent:
            raise BadImage(
                f'{path}: {transparent} of {img.width * img.height} pixels are transparent '
                f'(mode {mode}{", transparency entry" if "transparency" in img.info else ""}); '
                f'the model takes opaque RGB: flatten it onto the background you mean and save '
                f'it without transparency'
            )
        if mode in ALPHA_MODES:
            return
    if mode in EIGHT_BIT_MODES:
        return
    if mode == 'CMYK':
        raise BadImage(f'{path}: CMYK image; convert it to RGB (the model was trained on RGB)')
    if mode.startswith(('I;16', 'I', 'F')):
        raise BadImage(
            f'{path}: 16-bit or floating-point image (mode {mode}); the model takes 8-bit '
            f'RGB: scale it to 0-255 yourself (how depends on what its values mean)'
        )
    raise BadImage(f'{path}: image mode {mode} is not 8-bit RGB or grey')
