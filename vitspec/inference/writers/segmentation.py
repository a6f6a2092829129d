"""Segmentation outputs: ``<name>_labels.png``, one class index per pixel (an 8-bit PNG
carrying the palette, so viewers show colours and programs read indices; 16-bit without a
palette above 256 classes), ``<name>_overlay.jpg``, the image with the classes' colours blended
in, and ``classes.json`` once per folder (index -> name and colour)."""

import json
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

OVERLAY_OPACITY = 0.5


def label_image(labels: np.ndarray, palette) -> Image.Image:
    """(H, W) class indices as a PNG-ready image: palette mode up to 256 classes."""
    if labels.max(initial=0) < 256:
        img = Image.fromarray(labels.astype(np.uint8), mode='P')
        flat = np.zeros((256, 3), np.uint8)
        colours = np.asarray(palette, np.uint8).reshape(-1, 3)[:256]
        flat[: len(colours)] = colours
        img.putpalette(flat.ravel().tolist())
        return img
    return Image.fromarray(labels.astype(np.uint16))


def colour_labels(labels: np.ndarray, palette) -> np.ndarray:
    """(H, W, 3) RGB colours of the class indices; classes beyond the palette are black."""
    colours = np.zeros((int(labels.max(initial=0)) + 1, 3), np.uint8)
    known = np.asarray(palette, np.uint8).reshape(-1, 3)[: len(colours)]
    colours[: len(known)] = known
    return colours[labels]


def default_palette(num_classes: int) -> list:
    rng = np.random.default_rng(0)  # the same colours in every run
    return rng.integers(0, 256, (max(num_classes, 1), 3)).tolist()


class SegmentationWriter:
    """Writes one image's label map and overlay into ``out_dir``."""

    def __init__(self, out_dir: Path, dataset_meta: dict, num_classes: int):
        self.out_dir = Path(out_dir)
        self.classes = list(dataset_meta.get('classes') or range(num_classes))
        self.palette = list(dataset_meta.get('palette') or default_palette(len(self.classes)))
        self._write_classes()

    def _write_classes(self):
        entries = [
            dict(index=i, name=str(name), color=list(map(int, self.palette[i])))
            for i, name in enumerate(self.classes)
            if i < len(self.palette)
        ]
        (self.out_dir / 'classes.json').write_text(json.dumps(entries, indent=1))

    def write(self, stem: str, bgr: np.ndarray, labels: np.ndarray, source=None) -> dict:
        """``labels``: (H, W) class indices of the (H, W, 3) BGR image ``bgr``."""
        label_path = self.out_dir / f'{stem}_labels.png'
        label_image(labels, self.palette).save(label_path)
        colours = colour_labels(labels, self.palette)[..., ::-1]  # BGR for cv2
        overlay = cv2.addWeighted(bgr, 1 - OVERLAY_OPACITY, colours, OVERLAY_OPACITY, 0)
        overlay_path = self.out_dir / f'{stem}_overlay.jpg'
        cv2.imwrite(str(overlay_path), overlay)
        return dict(labels=label_path, overlay=overlay_path)
