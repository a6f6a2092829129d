"""Depth as 16-bit millimetres (rounded, clipped) and a picture with its scale bar."""

import numpy as np

from vitspec.inference.writers import depth_colour_picture, depth_to_millimetres


def test_millimetres_are_rounded_and_clipped():
    depth = np.array([[0.0, 0.0014, 2.5006, 80.0]])
    assert depth_to_millimetres(depth).tolist() == [[0, 1, 2501, 65535]]


def test_the_picture_has_the_depth_and_a_bar_beside_it():
    depth = np.linspace(1.0, 5.0, 120 * 160).reshape(120, 160).astype(np.float32)
    picture = depth_colour_picture(depth)
    assert picture.shape == (120, 160 + 48, 3) and picture.dtype == np.uint8
    assert not np.array_equal(picture[0, 0], picture[-1, -49])  # near and far differ
