"""Depth loading, the fixed crops of the depth benchmarks and DINOv2's colour augmentation."""

import numpy as np
from mmcv.transforms import BaseTransform
from mmseg.registry import TRANSFORMS

from vitspec.depth_crops import CROPS, NYU_SIZE, crop_box, scale_box
from vitspec.errors import ConfigError, DataFileError

from .file_checks import decode, read_bytes

# Training regions, (top, bottom, left, right) on 480x640 NYU images. 'nyu_train': the NYUCrop
# of DINOv2's depth configs (zhyever/Monocular-Depth-Estimation-Toolbox
# depth/datasets/pipelines/transforms.py: rows 45:472, cols 43:608), not quite the Eigen box.
TRAIN_REGIONS = {'nyu_train': (45, 472, 43, 608)}


@TRANSFORMS.register_module()
class LoadDepthPNG(BaseTransform):
    """Load a 16-bit depth PNG as metres (``value / depth_scale``; 0 = no measurement).

    ``depth_scale``: 1000 for NYU (mm), 256 for KITTI. Decoded 'unchanged', in its stored pixel
    order (an EXIF orientation tag is ignored), as the pipelines decode their images. The checks
    of the file (16-bit single channel, the image's size, the unit) are ``CheckSampleFiles``'s,
    earlier in the pipeline; here only a file that does not decode to 16-bit is named. A sample
    without ``depth_map_path`` (an image given to an inferencer) passes through.
    """

    def __init__(self, depth_scale: float, backend_args=None):
        self.depth_scale = depth_scale
        self.backend_args = backend_args

    def transform(self, results: dict) -> dict:
        path = results.get('depth_map_path')
        if not path:
            return results
        data = read_bytes(path, 'depth map', self.backend_args, image=results.get('img_path'))
        raw = decode(data, path, 'depth map', backend='cv2')
        if raw is None or raw.ndim != 2 or raw.dtype != np.uint16:
            desc = 'undecodable' if raw is None else f'{raw.dtype} with shape {raw.shape}'
            raise DataFileError(f'depth map {path} must be a single-channel 16-bit PNG, got {desc}')
        depth = raw.astype(np.float32)
        depth /= self.depth_scale  # in place: one array less than raw / scale, the same values
        results['gt_depth_map'] = depth
        results.setdefault('seg_fields', []).append('gt_depth_map')
        results['depth_rescale_factor'] = 1.0 / self.depth_scale
        return results


def crop_all(results: dict, top: int, bottom: int, left: int, right: int) -> dict:
    """Crop the image and every pixel field; remember where the crop sits in the full image
    (``crop_offset`` = top, left, full height, full width), for whoever maps results back."""
    full_h, full_w = results['img'].shape[:2]
    if not (0 <= top < bottom <= full_h and 0 <= left < right <= full_w):
        raise DataFileError(
            f'image {results.get("img_path")} ({full_w}x{full_h}) is too small '
            f'for the crop rows {top}:{bottom}, cols {left}:{right}'
        )
    results['img'] = results['img'][top:bottom, left:right]
    for key in results.get('seg_fields', []):
        results[key] = results[key][top:bottom, left:right]
    prev_top, prev_left, full_h, full_w = results.get('crop_offset', (0, 0, full_h, full_w))
    results['crop_offset'] = (prev_top + top, prev_left + left, full_h, full_w)
    # The cropped image is the reference: predictions are resized to ori_shape.
    results['img_shape'] = results['ori_shape'] = results['img'].shape[:2]
    return results


@TRANSFORMS.register_module()
class RegionCrop(BaseTransform):
    """Crop to a named region of a 480x640 NYU image (scaled for other sizes): 'nyu_train'
    (DINOv2's NYUCrop, rows 45:472, cols 43:608) or an evaluation crop such as 'nyu_eigen'
    (rows 45:471, cols 41:601). Trains on the part of NYU's images without the white border."""

    def __init__(self, region: str = 'nyu_train'):
        if region not in TRAIN_REGIONS and region not in CROPS:
            raise ConfigError(
                f'RegionCrop: unknown region {region!r}; use one of {tuple(TRAIN_REGIONS) + CROPS}'
            )
        self.region = region

    def transform(self, results: dict) -> dict:
        h, w = results['img'].shape[:2]
        if self.region in TRAIN_REGIONS:
            box = scale_box(TRAIN_REGIONS[self.region], NYU_SIZE, h, w)
        else:
            box = crop_box(self.region, h, w)
        return crop_all(results, *box)


@TRANSFORMS.register_module()
class KBCrop(BaseTransform):
    """KITTI benchmark crop: the bottom ``height`` rows and the centred ``width`` columns
    (352x1216), which all KITTI raw image sizes contain."""

    def __init__(self, height: int = 352, width: int = 1216):
        self.height, self.width = height, width

    def transform(self, results: dict) -> dict:
        h, w = results['img'].shape[:2]
        top, left = h - self.height, (w - self.width) // 2
        return crop_all(results, top, top + self.height, left, left + self.width)


@TRANSFORMS.register_module()
class ColorAug(BaseTransform):
    """DINOv2's depth colour augmentation (ColorAug of zhyever/Monocular-Depth-Estimation-Toolbox
    depth/datasets/pipelines/transforms.py): with probability ``prob``, on the 0-255 pixel
    values, ``clip(img ** gamma * brightness * colour, 0, 255)`` with gamma, brightness and one
    factor per channel drawn uniformly from their ranges. The gamma acts on 0-255 values, not
    on 0-1 ones (255 ** 1.1 saturates), exactly as there. The output is float32.
    """

    def __init__(
        self,
        prob: float = 0.5,
        gamma_range=(0.9, 1.1),
        brightness_range=(0.9, 1.1),
        color_range=(0.9, 1.1),
    ):
        if not 0 <= prob <= 1:
            raise ConfigError(f'ColorAug: prob must be in [0, 1], got {prob}')
        for name, rng in (
            ('gamma_range', gamma_range),
            ('brightness_range', brightness_range),
            ('color_range', color_range),
        ):
            if len(rng) != 2 or min(rng) <= 0:
                raise ConfigError(f'ColorAug: {name} must be two positive numbers, got {rng}')
        self.prob, self.gamma_range = prob, tuple(gamma_range)
        self.brightness_range, self.color_range = tuple(brightness_range), tuple(color_range)

    def transform(self, results: dict) -> dict:
        if np.random.rand() >= self.prob:
            return results
        gamma = np.random.uniform(min(self.gamma_range), max(self.gamma_range))
        brightness = np.random.uniform(min(self.brightness_range), max(self.brightness_range))
        colors = np.random.uniform(min(self.color_range), max(self.color_range), size=3)
        img = results['img'].astype(np.float64) ** gamma * brightness * colors
        results['img'] = np.clip(img, 0, 255).astype(np.float32)
        return results
