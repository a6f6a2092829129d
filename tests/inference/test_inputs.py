"""Which files the inputs name, and how each image is read or refused."""

import shutil

import cv2
import numpy as np
import pytest
from PIL import Image

from vitspec.errors import DataFileError
from vitspec.inference.inputs import BadImage, find_images, read_image

ORIENTATION = 0x0112


def test_folders_globs_and_lists_name_each_image_once(ade_images, tmp_path):
    images = sorted(ade_images.glob('*.jpg'))
    listing = tmp_path / 'list.txt'
    listing.write_text(f'# my images\n{images[0]}\n\n{images[1]}\n')
    found = find_images([str(listing), str(ade_images / '*.jpg'), str(ade_images)])
    assert found == [images[0], images[1], images[2]]


@pytest.mark.parametrize('make', ['empty_folder', 'missing', 'no_match', 'bad_list'])
def test_inputs_that_name_no_image_are_errors(tmp_path, make):
    spec = {
        'empty_folder': tmp_path,
        'missing': tmp_path / 'nope.jpg',
        'no_match': tmp_path / '*.png',
        'bad_list': tmp_path / 'list.txt',
    }[make]
    (tmp_path / 'notes.md').write_text('not an image')
    (tmp_path / 'list.txt').write_text('gone.jpg\n')
    with pytest.raises(DataFileError) as info:
        find_images([str(spec)])
    assert (spec.name if make != 'bad_list' else 'gone.jpg') in str(info.value)


def test_exif_orientation_is_applied(ade_images, tmp_path):
    """A photo tagged "rotate 90" is predicted upright, at its displayed size."""
    source = Image.open(ade_images / 'ADE_val_00000003.jpg')
    exif = Image.Exif()
    exif[ORIENTATION] = 6
    tagged = tmp_path / 'tagged.jpg'
    source.save(tagged, exif=exif.tobytes())
    image = read_image(tagged)
    assert image.bgr.shape == (source.width, source.height, 3)
    assert image.bgr.dtype == np.uint8


def bad_images(ade_images, folder):
    rgb = Image.open(ade_images / 'ADE_val_00000003.jpg').convert('RGB')
    (folder / 'empty.jpg').write_bytes(b'')
    (folder / 'garbage.png').write_bytes(b'\x89PNG not really')
    Image.fromarray(np.full((8, 8), 4000, np.uint16)).save(folder / 'sixteen.png')
    rgb.convert('CMYK').save(folder / 'cmyk.jpg')
    cv2.imwrite(str(folder / 'rgb16.png'), np.asarray(rgb).astype(np.uint16) * 257)
    rgb.convert('RGBA').save(folder / 'alpha.png')
    return {
        'empty.jpg': 'empty file',
        'garbage.png': 'cannot decode',
        'sixteen.png': '16-bit',
        'rgb16.png': '16-bit RGB',
        'cmyk.jpg': 'CMYK',
        'alpha.png': 'transparency',
    }


def test_bad_images_are_refused_with_the_reason(ade_images, tmp_path):
    for name, reason in bad_images(ade_images, tmp_path).items():
        with pytest.raises(BadImage, match=reason) as info:
            read_image(tmp_path / name)
        assert name in str(info.value)


def test_grey_and_palette_images_are_read_as_rgb(ade_images, tmp_path):
    shutil.copy(ade_images / 'ADE_val_00000002.jpg', tmp_path / 'x.jpg')
    Image.open(tmp_path / 'x.jpg').convert('L').save(tmp_path / 'grey.png')
    Image.open(tmp_path / 'x.jpg').convert('P').save(tmp_path / 'pal.png')
    for name in ('grey.png', 'pal.png'):
        assert read_image(tmp_path / name).bgr.shape == (364, 500, 3)


def test_images_above_the_decompression_bomb_limit_need_huge(ade_images, monkeypatch):
    """PIL's limit, lowered here to below a real 400 x 300 image, stands in for a 200 MP scan."""
    monkeypatch.setattr(Image, 'MAX_IMAGE_PIXELS', 50_000)
    path = ade_images / 'ADE_val_00000003.jpg'
    with pytest.raises(BadImage, match='--slide'):
        read_image(path)
    assert read_image(path, huge=True).bgr.shape == (300, 400, 3)
    assert Image.MAX_IMAGE_PIXELS == 50_000
