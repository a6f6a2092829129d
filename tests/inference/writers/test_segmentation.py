"""Label maps as PNG: palette mode up to 256 classes, 16-bit indices beyond."""

import numpy as np
from PIL import Image

from vitspec.inference.writers import SegmentationWriter, label_image


def test_palette_png_keeps_indices_and_colours(tmp_path):
    labels = np.array([[0, 1], [2, 149]])
    palette = [(i, 255 - i, 7) for i in range(150)]
    label_image(labels, palette).save(tmp_path / 'l.png')
    back = Image.open(tmp_path / 'l.png')
    assert back.mode == 'P' and np.array_equal(np.asarray(back), labels)
    assert tuple(back.getpalette()[149 * 3 : 150 * 3]) == (149, 106, 7)


def test_more_than_256_classes_are_16_bit(tmp_path):
    labels = np.array([[0, 300], [999, 5]])
    label_image(labels, []).save(tmp_path / 'l.png')
    assert np.array_equal(np.asarray(Image.open(tmp_path / 'l.png')), labels)


def test_numbered_classes_without_names(tmp_path):
    writer = SegmentationWriter(tmp_path, {}, num_classes=3)
    written = writer.write('x', np.zeros((4, 5, 3), np.uint8), np.array([[0, 1, 2, 1, 0]] * 4))
    assert Image.open(written['labels']).size == (5, 4)
    assert (tmp_path / 'classes.json').read_text().count('"index"') == 3
