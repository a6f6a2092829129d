"""Depth outputs: ``<name>_depth.png``, 16-bit millimetres (NYU's and KITTI-style tools read
depth so; 0 only where the model predicts 0, values above 65.535 m are clipped),
``<name>_depth.npy`` on request (float32 metres, unrounded), and ``<name>_depth_color.png``,
the depth colour-mapped with a scale bar in metres on its right."""

from pathlib import Path

import cv2
import numpy as np
from matplotlib import colormaps

MAX_MILLIMETRES = np.iinfo(np.uint16).max
COLOUR_MAP = 'turbo_r'  # near is red, far is blue


def depth_to_millimetres(depth_m: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(depth_m * 1000.0), 0, MAX_MILLIMETRES).astype(np.uint16)


def depth_colour_picture(depth_m: np.ndarray) -> np.ndarray:
    """(H, W + bar, 3) BGR: the depth coloured between its own minimum and maximum, and a
    vertical scale bar labelled in metres."""
    low, high = float(np.min(depth_m)), float(np.max(depth_m))
    span = max(high - low, 1e-6)
    cmap = colormaps[COLOUR_MAP]
    picture = (cmap((depth_m - low) / span)[..., :3] * 255).astype(np.uint8)
    height = depth_m.shape[0]
    bar_width = max(48, depth_m.shape[1] // 8)
    ramp = np.linspace(1.0, 0.0, height)[:, None].repeat(bar_width // 3, axis=1)
    bar = np.full((height, bar_width, 3), 255, np.uint8)
    bar[:, : ramp.shape[1]] = (cmap(ramp)[..., :3] * 255).astype(np.uint8)
    rgb = np.concatenate([picture, bar], axis=1)[..., ::-1].copy()
    scale = max(0.3, min(0.5, height / 400))
    x = depth_m.shape[1] + ramp.shape[1] + 2
    for fraction in (0.0, 0.5, 1.0):
        value = high - fraction * span
        y = int(np.clip(fraction * (height - 1), 10, height - 3))
        cv2.putText(
            rgb, f'{value:.2f}m', (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 1,
            cv2.LINE_AA,
        )  # fmt: skip
    return rgb


class DepthWriter:
    def __init__(self, out_dir: Path, npy: bool = False):
        self.out_dir, self.npy = Path(out_dir), npy

    def write(self, stem: str, bgr: np.ndarray, depth_m: np.ndarray, source=None) -> dict:
        """``depth_m``: (H, W) depth in metres of the image ``bgr``."""
        written = dict(depth=self.out_dir / f'{stem}_depth.png')
        cv2.imwrite(str(written['depth']), depth_to_millimetres(depth_m))
        if self.npy:
            written['npy'] = self.out_dir / f'{stem}_depth.npy'
            np.save(written['npy'], depth_m.astype(np.float32))
        written['colour'] = self.out_dir / f'{stem}_depth_color.png'
        cv2.imwrite(str(written['colour']), depth_colour_picture(depth_m))
        return written
