"""Images are decoded in their stored pixel order: an EXIF orientation tag is not applied.

Label maps, depth maps and COCO annotations (whose width/height are the stored sizes) all
describe the stored pixels, and mmcv decodes them with flag 'unchanged', which ignores the tag.
mmcv's flag 'color' (cv2 and pillow backends) applies the tag to the image alone: a phone photo
tagged "rotate 180" then trains against a label upside down. The 'color' and 'grayscale' flags
are therefore mapped to mmcv's '*_ignore_orientation' ones. The turbojpeg and tifffile backends
never apply the tag and keep their flags.

The first image with a non-identity tag is logged (WARNING) once per process (the main process
and each data-loader worker): reading the tag costs one header parse with PIL, done only until
that first warning.
"""

import io
import logging

import mmcv.image.io as mmcv_io
from mmengine.logging import print_log
from PIL import Image

ORIENTATION_TAG = 0x0112
IGNORE_ORIENTATION = {
    'color': 'color_ignore_orientation',
    'grayscale': 'grayscale_ignore_orientation',
}
PNG_SIGNATURE = b'\x89PNG\r\n\x1a\n'
EXIF_CHUNK = b'eXIf'
_reported = False


def stored_order_flag(color_type: str, backend=None) -> str:
    """The mmcv decode flag that keeps the stored pixel order for ``color_type``."""
    if (backend or mmcv_io.imread_backend) not in ('cv2', 'pillow'):
        return color_type
    return IGNORE_ORIENTATION.get(color_type, color_type)


def orientation_tag(data: bytes) -> int:
    """The EXIF orientation of an encoded image (1 = as stored; also for no tag or no EXIF)."""
    if data[:8] == PNG_SIGNATURE and EXIF_CHUNK not in data:
        return 1  # PIL decodes a whole PNG to look for the chunk that may follow its pixels
    try:
        with Image.open(io.BytesIO(data)) as img:
            return int(img.getexif().get(ORIENTATION_TAG, 1))
    except Exception:  # decoding errors are the decoder's to report
        return 1


def report_orientation_once(data: bytes, path: str) -> None:
    """Log the first image of this process whose EXIF orientation is not the identity."""
    global _reported
    if _reported:
        return
    tag = orientation_tag(data)
    if tag not in (0, 1):
        _reported = True
        print_log(
            f'image {path} has EXIF orientation {tag}; it is loaded in its stored pixel order '
            '(not rotated), as its label / depth map / annotations are. Images with an '
            'orientation tag are reported once per process.',
            logger='current',
            level=logging.WARNING,
        )
