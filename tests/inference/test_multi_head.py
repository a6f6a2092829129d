"""Several heads on one frozen backbone: the demo ADE20K segmenter (block 5) and the demo NYU
depth model (blocks 2-5 with the CLS token) trained on the same backbone, run once per batch on
the real samples, each head's output the one it gives alone; other backbones and other inputs
refused."""

import argparse

import numpy as np
import pytest
import torch
from PIL import Image

from tests.inference.demo_checkpoints import DEPTHER, save_demo_checkpoint
from tests.utils import load_tool
from vitspec.errors import CheckpointError, ConfigError
from vitspec.inference import (
    MultiHeadPredictor,
    Predictor,
    find_images,
    load_heads,
    load_model,
    predict_files,
    read_image,
)


def segmenter_input(cfg):
    """The depth model's test pipeline given the segmenter's resize: the input both prepare."""
    pipeline = cfg.test_dataloader.dataset.pipeline
    pipeline.insert(1, dict(type='Resize', scale=(128, 128), keep_ratio=True))


@pytest.fixture(scope='module')
def depth_on_the_same_backbone(segmenter_checkpoint, tmp_path_factory):
    path = tmp_path_factory.mktemp('depth') / 'iter_0.pth'
    return save_demo_checkpoint(
        DEPTHER, path, seed=1, backbone_from=segmenter_checkpoint, edit_cfg=segmenter_input
    )


@pytest.fixture(scope='module')
def images(ade_images, nyu_images):
    return find_images([ade_images, *nyu_images])


def count_calls(module: torch.nn.Module) -> list:
    calls = []
    module.register_forward_hook(lambda *_: calls.append(1))
    return calls


def test_the_backbone_runs_once_and_each_head_predicts_as_alone(
    segmenter_checkpoint, depth_on_the_same_backbone, images
):
    multi = load_heads([segmenter_checkpoint, depth_on_the_same_backbone])
    assert multi.names == [segmenter_checkpoint.parent.name, depth_on_the_same_backbone.parent.name]
    assert multi.shared.out_indices == [2, 3, 4, 5]
    calls = count_calls(multi.shared.backbone)
    predictor = MultiHeadPredictor(multi)
    alone = [Predictor(load_model(c)) for c in (segmenter_checkpoint, depth_on_the_same_backbone)]
    seg_name, depth_name = multi.names
    for count, path in enumerate(images[1:], 1):  # an ADE20K image of each aspect, the NYU
        bgr = read_image(path).bgr
        outputs = predictor.predict([bgr])
        assert len(calls) == count
        seg, depth = outputs[seg_name][0], outputs[depth_name][0]
        seg_alone, depth_alone = alone[0].predict([bgr])[0], alone[1].predict([bgr])[0]
        torch.testing.assert_close(seg.seg_logits.data, seg_alone.seg_logits.data)
        assert torch.equal(seg.pred_sem_seg.data, seg_alone.pred_sem_seg.data)
        assert seg.pred_sem_seg.data.shape[1:] == bgr.shape[:2]
        torch.testing.assert_close(depth.pred_depth_map.data, depth_alone.pred_depth_map.data)
        assert depth.pred_depth_map.data.shape[1:] == bgr.shape[:2]
        assert 'pred_depth_map' not in seg and 'pred_sem_seg' not in depth


def test_each_head_writes_its_files_into_its_folder(
    segmenter_checkpoint, depth_on_the_same_backbone, images, tmp_path
):
    multi = load_heads([segmenter_checkpoint, depth_on_the_same_backbone])
    calls = count_calls(multi.shared.backbone)
    images = [images[2], images[2], *images[3:]]  # the first two make one batch
    summary = predict_files(multi, images, tmp_path, batch_size=2, npy=True, progress=False)
    assert len(summary.written) == len(images) == 4 and not summary.skipped
    assert len(calls) == 3
    seg_name, depth_name = multi.names
    for written in summary.written:
        size = Image.open(written['image']).size
        labels = Image.open(written[seg_name]['labels'])
        assert labels.size == size and np.asarray(labels).max() < 150
        depth = np.asarray(Image.open(written[depth_name]['depth']))
        assert depth.dtype == np.uint16 and depth.shape == size[::-1]
        assert written[depth_name]['npy'].is_file()
        assert written[seg_name]['labels'].parent == tmp_path / seg_name
        assert written[depth_name]['depth'].parent == tmp_path / depth_name


def test_a_backbone_with_other_weights_is_refused(segmenter_checkpoint, tmp_path):
    other = save_demo_checkpoint(DEPTHER, tmp_path / 'other.pth', seed=1, edit_cfg=segmenter_input)
    first_key = next(iter(load_model(segmenter_checkpoint).model.backbone.state_dict()))
    with pytest.raises(CheckpointError, match=rf'backbone\.{first_key} differs'):
        load_heads([segmenter_checkpoint, other])


def test_a_backbone_of_another_config_is_refused(segmenter_checkpoint, tmp_path):
    def eight_heads(cfg):
        segmenter_input(cfg)
        cfg.model.backbone.num_heads = 8

    other = save_demo_checkpoint(
        DEPTHER, tmp_path / 'other.pth', backbone_from=segmenter_checkpoint, edit_cfg=eight_heads
    )
    with pytest.raises(CheckpointError, match=r'backbone\.num_heads is 8 there and 4 here'):
        load_heads([segmenter_checkpoint, other])


def test_another_input_is_refused_unless_one_head_prepares_it(
    segmenter_checkpoint, ade_images, tmp_path
):
    """The demo depth model does not resize: its backbone input is not the segmenter's."""
    native = save_demo_checkpoint(
        DEPTHER, tmp_path / 'depth.pth', backbone_from=segmenter_checkpoint
    )
    with pytest.raises(ConfigError, match='test_pipeline .*Resize.*input_from'):
        load_heads([segmenter_checkpoint, native])
    multi = load_heads([segmenter_checkpoint, native], input_from=0)
    bgr = read_image(ade_images / 'ADE_val_00000002.jpg').bgr
    depth = MultiHeadPredictor(multi).predict([bgr])[multi.names[1]][0]
    assert depth.pred_depth_map.data.shape[1:] == bgr.shape[:2]


def test_the_tool_takes_heads(
    segmenter_checkpoint, depth_on_the_same_backbone, nyu_images, tmp_path
):
    infer = load_tool('infer')
    out = tmp_path / 'out'
    argv = [str(nyu_images[0]), '--heads', str(segmenter_checkpoint)]
    assert infer.main([*argv, str(depth_on_the_same_backbone), '--out', str(out)]) == 0
    assert (out / segmenter_checkpoint.parent.name / 'bookstore_0001d_00001_labels.png').is_file()
    assert (
        out / depth_on_the_same_backbone.parent.name / 'bookstore_0001d_00001_depth.png'
    ).is_file()
    with pytest.raises(SystemExit):
        infer.main([*argv, '--out', str(out)])  # one head
    parser = argparse.ArgumentParser()
    assert infer.head_paths(['a.pth', 'b.py', 'b.pth'], parser) == (
        [None, 'b.py'],
        ['a.pth', 'b.pth'],
    )


def test_eomt_has_no_backbone_apart_from_its_head():
    from tests.inference.demo_checkpoints import EOMT
    from vitspec.config.load import load_config
    from vitspec.inference.model_loading import SEGMENTATION, LoadedModel, build_model
    from vitspec.inference.multi_head import check_has_own_backbone

    cfg = load_config(str(EOMT))
    eomt = LoadedModel(build_model(cfg), cfg, SEGMENTATION, {}, 'eomt.pth')
    with pytest.raises(ConfigError, match='eomt.pth: a EoMT has no backbone apart'):
        check_has_own_backbone(eomt)


def test_under_autocast_each_head_predicts_as_alone(
    segmenter_checkpoint, depth_on_the_same_backbone, nyu_images
):
    multi = load_heads([segmenter_checkpoint, depth_on_the_same_backbone])
    bgr = read_image(find_images([nyu_images[0]])[0]).bgr
    outputs = MultiHeadPredictor(multi, amp=True).predict([bgr])
    seg_name, depth_name = multi.names
    seg_alone = Predictor(load_model(segmenter_checkpoint), amp=True).predict([bgr])[0]
    depth_alone = Predictor(load_model(depth_on_the_same_backbone), amp=True).predict([bgr])[0]
    torch.testing.assert_close(outputs[seg_name][0].seg_logits.data, seg_alone.seg_logits.data)
    torch.testing.assert_close(
        outputs[depth_name][0].pred_depth_map.data, depth_alone.pred_depth_map.data
    )


def test_heads_slide_on_shared_windows_as_each_slides_alone(
    segmenter_checkpoint, depth_on_the_same_backbone, nyu_images, tmp_path
):
    from vitspec.inference.large_images import slide_predict

    multi = load_heads([segmenter_checkpoint, depth_on_the_same_backbone])
    calls = count_calls(multi.shared.backbone)
    bgr = read_image(find_images([nyu_images[0]])[0]).bgr
    options = dict(window=(96, 128), overlap=0.25, batch_size=3)
    slid = MultiHeadPredictor(multi).slide(bgr, **options)
    alone = [Predictor(load_model(c)) for c in (segmenter_checkpoint, depth_on_the_same_backbone)]
    alone_calls = count_calls(alone[0].loaded.model.backbone)
    seg, depth = (slide_predict(p, bgr, **options) for p in alone)
    assert len(calls) == len(alone_calls) > 1  # one backbone run per batch of windows
    seg_name, depth_name = multi.names
    assert slid[seg_name].shape == slid[depth_name].shape == bgr.shape[:2]
    assert np.array_equal(slid[seg_name], seg)
    np.testing.assert_allclose(slid[depth_name], depth, rtol=1e-5, atol=1e-6)
    assert multi.shared._outputs == {}  # released

    infer = load_tool('infer')
    out = tmp_path / 'out'
    argv = [str(nyu_images[0]), '--heads', str(segmenter_checkpoint)]
    argv += [str(depth_on_the_same_backbone), '--out', str(out), '--slide', '--window', '96', '128']
    assert infer.main(argv) == 0
    depth_png = out / depth_on_the_same_backbone.parent.name / 'bookstore_0001d_00001_depth.png'
    assert np.asarray(Image.open(depth_png)).shape == bgr.shape[:2]


def test_the_tool_predicts_heads_through_the_library_skipping_bad_images(
    segmenter_checkpoint, depth_on_the_same_backbone, tmp_path, monkeypatch, capsys
):
    from tests.utils import output_checks
    from vitspec.inference import batch_run

    infer = load_tool('infer')
    calls = []

    def library_predict(*args, **kwargs):
        calls.append(args)
        return batch_run.predict(*args, **kwargs)

    monkeypatch.setattr(infer, 'predict', library_predict)
    checked = output_checks(monkeypatch, batch_run)
    photos, out = tmp_path / 'photos', tmp_path / 'out'
    photos.mkdir()
    Image.fromarray(np.zeros((1, 20000, 3), np.uint8)).save(photos / 'strip.png')
    Image.fromarray(np.zeros((48, 64, 3), np.uint8)).save(photos / 'photo.png')
    heads = [str(segmenter_checkpoint), str(depth_on_the_same_backbone)]
    argv = [str(photos), '--heads', *heads, '--out', str(out), '--batch', '2', '--device', 'cpu']
    assert infer.main(argv) == 0
    assert calls == [(heads, [str(photos)], str(out), [None, None], 'cpu')]
    assert checked == [str(out)]
    printed = capsys.readouterr().out
    assert '2 heads on one backbone' in printed and '1 image(s) predicted' in printed
    assert 'strip.png: 1x20000 pixels: the test pipeline cannot prepare it' in printed
    assert (out / segmenter_checkpoint.parent.name / 'photo_labels.png').is_file()
    assert (out / depth_on_the_same_backbone.parent.name / 'photo_depth.png').is_file()
