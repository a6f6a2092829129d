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
    alpha = rgb.convert('RGBA')
    alpha.putpixel((0, 0), (0, 0, 0, 0))
    alpha.save(folder / 'alpha.png')
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


def test_a_file_named_directly_is_taken_whatever_its_suffix(tmp_path):
    """A file named directly is taken whatever its suffix; reading it says what is wrong."""
    Image.new('RGB', (4, 4)).save(tmp_path / 'photo', format='PNG')
    assert find_images([str(tmp_path / 'photo')]) == [tmp_path / 'photo']


def test_a_folder_gives_every_image_by_content_and_names_each_other_file(tmp_path):
    """GIF, JFIF and suffix-less images were skipped without a word; now every image PIL
    identifies is listed, and so is a file named like one (reading it says what is wrong with
    it), and each other entry is named with the reason."""
    Image.new('RGB', (4, 4)).save(tmp_path / 'a.gif')
    Image.new('RGB', (4, 4)).save(tmp_path / 'b.jfif', format='JPEG')
    Image.new('RGB', (4, 4)).save(tmp_path / 'c', format='PNG')
    Image.new('RGB', (4, 4)).save(tmp_path / 'd.JPG')
    (tmp_path / 'e.jpg').write_bytes(b'')
    (tmp_path / 'notes.md').write_text('not an image')
    (tmp_path / 'notes').write_text('not an image either')
    (tmp_path / 'sub').mkdir()
    skipped = []
    found = find_images([str(tmp_path)], on_skip=lambda path, why: skipped.append((path, why)))
    assert [p.name for p in found] == ['a.gif', 'b.jfif', 'c', 'd.JPG', 'e.jpg']
    reasons = {path.name: why for path, why in skipped}
    assert sorted(reasons) == ['notes', 'notes.md', 'sub']
    assert 'not an image' in reasons['notes.md'] and 'not an image' in reasons['notes']
    assert 'folder' in reasons['sub']
    assert find_images([str(tmp_path / '*.*')], on_skip=lambda *a: None)[0].name == 'a.gif'


def test_skipped_files_are_printed_by_default(tmp_path, capsys):
    Image.new('RGB', (4, 4)).save(tmp_path / 'a.png')
    (tmp_path / 'notes.md').write_text('not an image')
    find_images([str(tmp_path)])
    assert f'skipped {tmp_path / "notes.md"}: not an image' in capsys.readouterr().err


def sixteen_bit_images(folder):
    """RGB images of 16-bit samples in three containers, values of a 12-bit sensor (what PIL
    reduced to an almost black 8-bit image for TIFF and PPM)."""
    rgb = (np.arange(8 * 10 * 3).reshape(8, 10, 3) * 17).astype(np.uint16)
    for name in ('rgb16.tif', 'rgb16.ppm', 'rgb16.png'):
        assert cv2.imwrite(str(folder / name), rgb)
    rgba = np.concatenate([rgb, np.full_like(rgb[..., :1], 65535)], axis=-1)
    assert cv2.imwrite(str(folder / 'rgba16.png'), rgba)
    assert cv2.imwrite(str(folder / 'grey16.tif'), rgb[..., 0])
    return ['rgb16.tif', 'rgb16.ppm', 'rgb16.png', 'rgba16.png', 'grey16.tif']


def test_sixteen_bit_samples_are_refused_whatever_the_container(tmp_path):
    for name in sixteen_bit_images(tmp_path):
        with pytest.raises(BadImage, match='16-bit') as info:
            read_image(tmp_path / name)
        assert name in str(info.value) and '0-255' in str(info.value)


def test_eight_bit_tiff_and_ppm_are_read(tmp_path):
    rgb = np.arange(8 * 10 * 3, dtype=np.uint8).reshape(8, 10, 3)
    for name in ('rgb8.tif', 'rgb8.ppm'):
        Image.fromarray(rgb).save(tmp_path / name)
        np.testing.assert_array_equal(read_image(tmp_path / name).bgr, rgb[..., ::-1])


def test_images_of_several_frames_are_refused(tmp_path):
    pages = [Image.new('RGB', (4, 4), colour) for colour in ('red', 'blue')]
    pages[0].save(tmp_path / 'scan.tif', save_all=True, append_images=pages[1:])
    pages[0].save(tmp_path / 'anim.gif', save_all=True, append_images=pages[1:])
    for name in ('scan.tif', 'anim.gif'):
        with pytest.raises(BadImage, match='2 frames') as info:
            read_image(tmp_path / name)
        assert name in str(info.value)
    pages[0].save(tmp_path / 'one.gif')
    assert read_image(tmp_path / 'one.gif').bgr[0, 0].tolist() == [0, 0, 255]


def transparency_images(folder):
    """Each way PNG and GIF mark a pixel transparent: an alpha channel, or a transparency entry
    (tRNS) on a palette index, a grey value or an RGB colour."""
    red = Image.new('RGB', (4, 4), 'red')
    red.putpixel((0, 0), (0, 0, 255))
    palette = red.quantize(2)
    palette.save(folder / 'palette.png', transparency=palette.getpixel((0, 0)))
    palette.save(folder / 'palette.gif', transparency=palette.getpixel((0, 0)))
    red.save(folder / 'rgb_trns.png', transparency=(0, 0, 255))
    red.convert('L').save(folder / 'grey_trns.png', transparency=red.convert('L').getpixel((0, 0)))
    rgba = red.convert('RGBA')
    rgba.putpixel((0, 0), (0, 0, 255, 128))
    rgba.save(folder / 'rgba.png')
    return ['palette.png', 'palette.gif', 'rgb_trns.png', 'grey_trns.png', 'rgba.png']


def test_transparent_pixels_are_refused_alike_by_alpha_or_transparency_entry(tmp_path):
    """Palette, grey and RGB PNGs with tRNS were flattened while RGBA was refused."""
    for name in transparency_images(tmp_path):
        with pytest.raises(BadImage, match='1 of 16 pixels are transparent') as info:
            read_image(tmp_path / name)
        assert name in str(info.value)


def test_transparency_that_leaves_every_pixel_opaque_is_read(tmp_path):
    red = Image.new('RGB', (4, 4), 'red')
    red.convert('RGBA').save(tmp_path / 'opaque.png')
    red.save(tmp_path / 'unused_trns.png', transparency=(0, 0, 255))
    for name in ('opaque.png', 'unused_trns.png'):
        assert read_image(tmp_path / name).bgr[0, 0].tolist() == [0, 0, 255]
