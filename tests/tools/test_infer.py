"""tools/infer.py, as a user runs it: a checkpoint alone or with its config, folders and globs
of real samples, the files of each task, bad inputs named, an output folder in use refused."""

import numpy as np
import pytest
import torch
from PIL import Image

from tests.inference.demo_checkpoints import (
    DEPTHER,
    DETECTOR,
    EOMT,
    SEGMENTER,
    save_demo_checkpoint,
)
from tests.utils import load_tool, output_checks, run_tool

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


def test_an_output_folder_that_holds_an_input_is_refused_even_with_overwrite(segmenter, tmp_path):
    # a photo named like another's label map: with the inputs in --out, a.jpg's labels would
    # replace a_labels.png, and a_labels.png, read later, would be predicted as an input
    rng = np.random.default_rng(0)
    for name in ('a.jpg', 'a_labels.png'):
        Image.fromarray(rng.integers(0, 255, (64, 80, 3), dtype=np.uint8)).save(tmp_path / name)
    before = (tmp_path / 'a_labels.png').read_bytes()
    args = [str(segmenter), str(tmp_path), '--out', str(tmp_path), '--overwrite']
    with pytest.raises(SystemExit, match='holds the input'):
        infer.main(args)
    assert (tmp_path / 'a_labels.png').read_bytes() == before


@pytest.mark.parametrize(
    'flags, message',
    [
        (['--window', '64', '64'], 'add --slide'),
        (['--overlap', '0.9'], 'add --slide'),
        (['--slide', '--overlap', '1.0'], '--overlap 1: the fraction'),
        (['--slide', '--overlap', '-0.5'], '--overlap -0.5'),
        (['--slide', '--window', '0', '0'], '--window'),
        (['--batch', '0'], 'expected a number >= 1'),
        (['--device', 'gpu'], '--device gpu: not a device name'),
    ],
)
def test_settings_that_would_be_ignored_or_cannot_run_are_refused(
    segmenter, tmp_path, capsys, flags, message
):
    image = tmp_path / 'a.png'
    Image.fromarray(np.zeros((32, 32, 3), np.uint8)).save(image)
    with pytest.raises(SystemExit) as exc:
        infer.main([str(segmenter), str(image), '--out', str(tmp_path / 'out'), *flags])
    assert message in f'{exc.value.code} {capsys.readouterr().err}'
    assert not (tmp_path / 'out').exists()


def test_cuda_on_a_machine_without_one_and_a_missing_checkpoint(tmp_path):
    image = tmp_path / 'a.png'
    Image.fromarray(np.zeros((32, 32, 3), np.uint8)).save(image)
    out = tmp_path / 'out'
    if not torch.cuda.is_available():
        with pytest.raises(SystemExit, match='no CUDA device; use --device cpu'):
            infer.main([str(tmp_path / 'x.pth'), str(image), '--out', str(out), '--device', 'cuda'])
    with pytest.raises(SystemExit, match='does not exist'):
        infer.main([str(tmp_path / 'missing.pth'), str(image), '--out', str(out)])
    assert not out.exists()  # nothing created for a run that could not start


def test_an_image_the_pipeline_cannot_prepare_is_skipped_and_named(segmenter, tmp_path, capsys):
    photos = tmp_path / 'photos'
    photos.mkdir()
    Image.fromarray(np.zeros((1, 20000, 3), np.uint8)).save(photos / 'strip.png')
    Image.fromarray(np.zeros((48, 64, 3), np.uint8)).save(photos / 'photo.png')
    args = [str(segmenter), str(photos), '--out', str(tmp_path / 'out'), '--batch', '2']
    assert infer.main(args) == 0
    printed = capsys.readouterr().out
    assert '1 image(s) predicted' in printed and '1 skipped' in printed
    assert 'strip.png: 1x20000 pixels: the test pipeline cannot prepare it' in printed
    assert (tmp_path / 'out/photo_labels.png').is_file()


def test_main_predicts_through_the_library_and_checks_the_output_once(
    segmenter, tmp_path, monkeypatch, capsys
):
    from vitspec.inference import batch_run

    assert infer.predict is batch_run.predict  # the library's own, not a copy
    calls = []

    def library_predict(*args, **kwargs):
        calls.append(args)
        return batch_run.predict(*args, **kwargs)

    monkeypatch.setattr(infer, 'predict', library_predict)
    checked = output_checks(monkeypatch, batch_run)
    Image.fromarray(np.zeros((48, 64, 3), np.uint8)).save(tmp_path / 'a.png')
    out = tmp_path / 'out'
    assert infer.main([str(segmenter), str(tmp_path / 'a.png'), '--out', str(out)]) == 0
    assert len(calls) == 1 and calls[0][0] == str(segmenter)
    assert checked == [str(out)]
    assert (out / 'a_labels.png').is_file() and 'segmentation model of' in capsys.readouterr().out
