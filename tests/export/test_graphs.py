"""The demo segmentation and depth models exported end to end with a dynamic batch and image
size, against mmseg's own whole-image test (data preprocessor, ``test_step``, postprocess) on
the same non-square images, at the traced size and a second one."""

import numpy as np
import torch
from mmseg.structures import SegDataSample

from tests.export.demo_models import DEMO_EOMT, demo_model
from vitspec.export import OnnxModel, export_model
from vitspec.export.graphs import BackboneGraph, graph_for

# Measured here: scores 1e-6, depth 8e-6 (metres, 0.001-10): float32 rounding.
SEG_TOLERANCE = 1e-5
DEPTH_TOLERANCE = 1e-4
TRACED = (96, 120)
SECOND = (77, 130)  # neither a multiple of the patch (8) nor of the traced size


def rgb_images(size, batch, seed):
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(0, 256, (batch, 3, *size), generator=generator).float()


def mmseg_test_step(model, images):
    """What tools/test.py runs on these RGB images: the pipeline's BGR uint8 arrays, the data
    preprocessor, the model's test_step."""
    h, w = images.shape[-2:]
    inputs = [img.flip(0).to(torch.uint8) for img in images]  # as cv2 reads: BGR
    meta = dict(ori_shape=(h, w), img_shape=(h, w), pad_shape=(h, w))
    samples = [SegDataSample(metainfo=meta) for _ in inputs]
    with torch.no_grad():
        return model.test_step(dict(inputs=inputs, data_samples=samples))


def test_segmentation_end_to_end(demo_segmentor, tmp_path):
    exported = export_model(demo_segmentor, tmp_path / 'seg.onnx', TRACED, dynamic=True)
    assert exported.dynamic_size and exported.output_names == ('seg_logits', 'labels')
    onnx_model = OnnxModel(exported.path)
    for size, batch in ((TRACED, 2), (SECOND, 1)):
        images = rgb_images(size, batch, seed=size[0])
        logits, labels = onnx_model(images)
        assert logits.shape == (batch, 150, *size) and labels.shape == (batch, *size)
        for i, sample in enumerate(mmseg_test_step(demo_segmentor, images)):
            want = sample.seg_logits.data.numpy()
            assert np.abs(logits[i] - want).max() < SEG_TOLERANCE
            assert (labels[i] == sample.pred_sem_seg.data[0].numpy()).mean() > 0.999


def test_eomt_end_to_end(tmp_path):
    """EoMT: the queries ride in the SpecViT's last blocks, the mask module and the per-pixel
    class scores follow; one export, the same bounds as the segmenter."""
    model = demo_model(DEMO_EOMT)
    exported = export_model(model, tmp_path / 'eomt.onnx', TRACED, dynamic=True)
    assert exported.dynamic_size and exported.output_names == ('seg_logits', 'labels')
    onnx_model = OnnxModel(exported.path)
    for size, batch in ((TRACED, 2), (SECOND, 1)):
        images = rgb_images(size, batch, seed=size[0])
        logits, labels = onnx_model(images)
        assert logits.shape == (batch, 150, *size) and labels.shape == (batch, *size)
        for i, sample in enumerate(mmseg_test_step(model, images)):
            want = sample.seg_logits.data.numpy()
            assert np.abs(logits[i] - want).max() < SEG_TOLERANCE, size
            assert (labels[i] == sample.pred_sem_seg.data[0].numpy()).mean() > 0.999


def test_depth_end_to_end(demo_depth, tmp_path):
    exported = export_model(demo_depth, tmp_path / 'depth.onnx', TRACED, dynamic=True)
    assert exported.dynamic_size and exported.output_names == ('depth',)
    onnx_model = OnnxModel(exported.path)
    for size, batch in ((TRACED, 2), (SECOND, 1)):
        images = rgb_images(size, batch, seed=size[1])
        (depth,) = onnx_model(images)
        assert depth.shape == (batch, 1, *size)
        for i, sample in enumerate(mmseg_test_step(demo_depth, images)):
            want = sample.pred_depth_map.data.numpy()
            assert np.abs(depth[i] - want).max() < DEPTH_TOLERANCE


def test_the_backbone_graph_flattens_cls_outputs(demo_depth):
    graph = graph_for(demo_depth.backbone)
    assert isinstance(graph, BackboneGraph)
    assert graph.output_names()[:2] == ('block2', 'block2_cls')
    outs = graph(torch.randn(1, 3, 20, 28))
    assert len(outs) == 8 and outs[0].shape == (1, 128, 3, 4) and outs[1].shape == (1, 128)
