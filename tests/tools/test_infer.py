"""tools/infer.py, as a user runs it: a checkpoint alone or with its config, folders and globs
of real samples, the files of each task, bad inputs named, an output folder in use refused."""

import numpy as np
import pytest
from PIL import Image

from tests.inference.demo_checkpoints import (
    DEPTHER,
    DETECTOR,
    EOMT,
    SEGMENTER,
    save_demo_checkpoint,
)
from tests.utils import load_tool, run_tool

infer = load_tool('infer')


@pytest.fixture(scope='module')
def segmenter(tmp_path_factory):
    return save_demo_checkpoint(SEGMENTER, tmp_path_factory.mktemp('seg') / 'iter_0.pth')


def test_a_segmentation_checkpoint_on_a_folder(segmenter, realdata, tmp_path):
    images = realdata / 'ade20k/ADEChallengeData2016/images/validation'
    proc = run_tool(
        ['tools/infer.py', segmenter, images, '--out', tmp_path / 'out', '--batch', '2']
    )
    assert '3 image(s) predicted' in proc.stdout and 'images/s' in proc.stdout
    for image in images.glob('*.jpg'):
        labels = Image.open(tmp_path / 'out' / f'{image.stem}_labels.png')
        assert labels.size == Image.open(image).size and np.asarray(labels).max() < 150
    with pytest.raises(SystemExit, match='--overwrite'):
        infer.main([str(segmenter), str(images), '--out', str(tmp_path / 'out')])


def test_a_depth_config_and_checkpoint_with_npy_and_amp(realdata, tmp_path, capsys):
    checkpoint = save_demo_checkpoint(DEPTHER, tmp_path / 'depth.pth')
    (tmp_path / 'bad').mkdir()
    (tmp_path / 'bad' / 'empty.png').write_bytes(b'')
    inputs = [str(realdata / 'nyu/rgb_only_no_gt/*.jpg'), str(tmp_path / 'bad')]
    args = [str(DEPTHER), str(checkpoint), *inputs, '--out', str(tmp_path / 'out')]
    assert infer.main([*args, '--npy', '--amp', '--device', 'cpu']) == 0
    printed = capsys.readouterr().out
    assert '1 image(s) predicted' in printed and 'skipped' in printed and 'empty.png' in printed
    millimetres = np.asarray(Image.open(tmp_path / 'out/classroom__rgb_00283_depth.png'))
    assert millimetres.shape == (480, 640) and millimetres.dtype == np.uint16
    metres = np.load(tmp_path / 'out/classroom__rgb_00283_depth.npy')
    assert np.abs(millimetres - metres * 1000).max() <= 0.5 + 1e-3


def test_slide_on_a_large_image(segmenter, realdata, tmp_path):
    tile = np.asarray(Image.open(realdata / 'ade20k/ADEChallengeData2016/images/validation/'
                                 'ADE_val_00000003.jpg'))  # fmt: skip
    Image.fromarray(np.tile(tile, (2, 2, 1))).save(tmp_path / 'large.png')
    out = tmp_path / 'out'
    args = [str(segmenter), str(tmp_path / 'large.png'), '--out', str(out), '--slide']
    assert infer.main([*args, '--window', '128', '160', '--batch', '4']) == 0
    assert Image.open(out / 'large_labels.png').size == (800, 600)


def test_arguments_name_the_config_only_when_it_is_one():
    args = infer.parse_args(['a.pth', 'x.jpg', '--out', 'o'])
    assert (args.config, args.checkpoint, args.inputs) == (None, 'a.pth', ['x.jpg'])
    args = infer.parse_args(['vitspec::demo/x.py', 'a.pth', 'd/', 'e/', '--out', 'o'])
    assert (args.config, args.checkpoint, args.inputs) == (
        'vitspec::demo/x.py',
        'a.pth',
        ['d/', 'e/'],
    )
    with pytest.raises(SystemExit):
        infer.parse_args(['a.pth', '--out', 'o'])


def test_a_detection_and_an_eomt_checkpoint(realdata, tmp_path, capsys):
    from pycocotools.coco import COCO

    coco_images = sorted((realdata / 'coco/train2017').glob('*.jpg'))[:3]
    listing = tmp_path / 'images.txt'
    listing.write_text('\n'.join(map(str, coco_images)))
    detector = save_demo_checkpoint(DETECTOR, tmp_path / 'det.pth')
    assert infer.main([str(detector), str(listing), '--out', str(tmp_path / 'det')]) == 0
    coco = COCO(str(tmp_path / 'det/detections.json'))
    assert [img['file_name'] for img in coco.imgs.values()] == [p.name for p in coco_images]
    with pytest.raises(SystemExit, match='sliding-window prediction of detection'):
        infer.main([str(detector), str(listing), '--out', str(tmp_path / 'det2'), '--slide'])
    eomt = save_demo_checkpoint(EOMT, tmp_path / 'eomt.pth')
    ade = realdata / 'ade20k/ADEChallengeData2016/images/validation/ADE_val_00000001.jpg'
    assert infer.main([str(eomt), str(ade), '--out', str(tmp_path / 'eomt')]) == 0
    assert Image.open(tmp_path / 'eomt/ADE_val_00000001_labels.png').size == (683, 512)
