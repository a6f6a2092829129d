"""ChunkedEncoderDecoder's label map equals mmseg's full-size upsampling + argmax, while holding
a bounded amount of upsampled class scores; ChunkedSegTTAModel merges as SegTTAModel does."""

import copy
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F
from mmengine.config import Config
from mmengine.registry import DefaultScope
from mmseg.models.segmentors import EncoderDecoder, SegTTAModel
from mmseg.registry import MODELS
from mmseg.structures import SegDataSample

from tests.utils import ROOT
from vitspec.models.segmentors import ChunkedEncoderDecoder, ChunkedSegTTAModel
from vitspec.models.segmentors.row_resize import interpolation_matrix, resized_rows, row_bands

CLASSES = 150
ROUNDING = 1e-6  # measured: at most 7.2e-7 between banded and full resizes of randn scores
SEG_BASES = ['upernet_f2p.py', 'specvit-tiny-p8_fcn.py', 'linear_bnhead.py']


def tiny_model(kind, align_corners=False, **kwargs):
    cfg = Config.fromfile(ROOT / 'configs/_base_/models/specvit-tiny-p8_fcn.py').model
    cfg.update(type=kind.__name__, **kwargs)
    cfg.backbone.update(num_layers=1, embed_dims=16, num_heads=2, out_indices=(0,))
    cfg.decode_head.update(in_channels=16, channels=8, norm_cfg=dict(type='BN'))
    cfg.decode_head.update(align_corners=align_corners, num_classes=CLASSES)
    with DefaultScope.overwrite_default_scope('mmseg'):
        model = MODELS.build(cfg)
    assert type(model) is kind
    return model


def sample(ori_shape, padding=(0, 0, 0, 0), flip=None):
    meta = dict(ori_shape=ori_shape, img_shape=ori_shape, padding_size=list(padding))
    if flip:
        meta.update(flip=True, flip_direction=flip)
    return SegDataSample(metainfo=meta)


def assert_same_labels_up_to_ties(ours, reference_scores, reference_labels):
    """Equal labels, or ours scores within rounding of the best in the full-size reference."""
    differ = ours != reference_labels
    best = reference_scores.max(dim=0, keepdim=True).values
    chosen = reference_scores.gather(0, ours)
    assert (best - chosen)[differ].le(2 * ROUNDING).all()
    return int(differ.sum())


@pytest.mark.parametrize('align_corners', [False, True])
@pytest.mark.parametrize(
    'padding, flip',
    [((0, 0, 0, 0), None), ((0, 3, 0, 5), 'horizontal'), ((2, 0, 4, 0), 'vertical')],
)
def test_label_map_equals_mmseg_full_upsampling(align_corners, padding, flip):
    torch.manual_seed(0)
    ours = tiny_model(ChunkedEncoderDecoder, align_corners, max_chunk_bytes=CLASSES * 97 * 4 * 6)
    mmseg = tiny_model(EncoderDecoder, align_corners)
    logits = torch.randn(2, CLASSES, 21, 24)
    samples = [sample((131, 97), padding, flip), sample((40, 53), padding, flip)]
    expected = mmseg.postprocess_result(logits, copy.deepcopy(samples))
    got = ours.postprocess_result(logits, samples)
    differing = 0
    for one, ref, scores in zip(got, expected, logits):
        assert one.pred_sem_seg.data.shape == ref.pred_sem_seg.data.shape
        differing += assert_same_labels_up_to_ties(
            one.pred_sem_seg.data, ref.seg_logits.data, ref.pred_sem_seg.data
        )
        left, right, top, bottom = padding
        kept = scores[:, top : 21 - bottom, left : 24 - right]
        kept = kept.flip(2 if flip == 'horizontal' else 1) if flip else kept
        assert torch.equal(one.seg_logits.data, kept)  # the model's resolution, not ori_shape
    assert differing == 0  # no near-tie among these random scores


@pytest.mark.parametrize('align_corners', [False, True])
@pytest.mark.parametrize('in_size, out_size', [((17, 23), (131, 97)), ((64, 64), (37, 41))])
def test_banded_resize_equals_interpolate_up_to_rounding(align_corners, in_size, out_size):
    torch.manual_seed(1)
    scores = torch.randn(CLASSES, *in_size)
    full = F.interpolate(scores[None], out_size, mode='bilinear', align_corners=align_corners)[0]
    bands = [
        resized_rows(scores, out_size, a, b, align_corners)
        for a, b in row_bands(out_size, CLASSES, 4, CLASSES * out_size[1] * 4 * 5)
    ]
    assert (torch.cat(bands, dim=1) - full).abs().max() <= ROUNDING


@pytest.mark.parametrize('align_corners', [False, True])
@pytest.mark.parametrize('in_size, out_size', [((17, 23), (131, 97)), ((64, 1), (37, 5))])
def test_interpolation_matrices_resize_as_interpolate(align_corners, in_size, out_size):
    torch.manual_seed(2)
    scores = torch.randn(CLASSES, *in_size)
    full = F.interpolate(scores[None], out_size, mode='bilinear', align_corners=align_corners)[0]
    along_h = interpolation_matrix(in_size[0], out_size[0], align_corners)
    along_w = interpolation_matrix(in_size[1], out_size[1], align_corners)
    assert (along_h @ scores @ along_w.t() - full).abs().max() <= ROUNDING


def test_row_bands_hold_at_most_the_bound_and_cover_every_row():
    bound = 150 * 1000 * 4 * 7 + 5
    bands = list(row_bands((100, 1000), 150, 4, bound))
    assert [a for a, _ in bands] == list(range(0, 100, 7))
    assert bands[-1][1] == 100
    assert all((b - a) * 150 * 1000 * 4 <= bound for a, b in bands)
    assert list(row_bands((3, 1000), 150, 4, 10)) == [(0, 1), (1, 2), (2, 3)]  # one row at least


def test_one_channel_outputs_go_through_mmseg():
    torch.manual_seed(2)
    ours, mmseg = (tiny_model(k) for k in (ChunkedEncoderDecoder, EncoderDecoder))
    for model in (ours, mmseg):
        model.decode_head.threshold = 0.3
    logits = torch.randn(1, 1, 8, 8)
    got = ours.postprocess_result(logits, [sample((20, 30))])[0]
    ref = mmseg.postprocess_result(logits, [sample((20, 30))])[0]
    assert torch.equal(got.pred_sem_seg.data, ref.pred_sem_seg.data)
    assert torch.equal(got.seg_logits.data, ref.seg_logits.data)


def test_tta_merge_equals_mmseg_merge_of_full_size_scores():
    torch.manual_seed(3)
    ours = ChunkedSegTTAModel(module=tiny_model(ChunkedEncoderDecoder), max_chunk_bytes=10**5)
    mmseg = SegTTAModel(module=tiny_model(EncoderDecoder))
    ori = (75, 60)
    augs = [(torch.randn(1, CLASSES, 30, 24), None), (torch.randn(1, CLASSES, 45, 36), None)]
    augs.append((torch.randn(1, CLASSES, 45, 36), 'horizontal'))

    def predictions(model):
        lists = [model.module.postprocess_result(x, [sample(ori, flip=f)]) for x, f in augs]
        for (one,) in lists:
            one.set_metainfo(dict(img_path='x.png'))
        return model.merge_preds([[one for (one,) in lists]])[0]

    got, ref = predictions(ours), predictions(mmseg)
    full = torch.stack([F.interpolate(x, ori, mode='bilinear')[0] for x, _ in augs])
    full[2] = full[2].flip(2)
    assert_same_labels_up_to_ties(
        got.pred_sem_seg.data, full.softmax(1).mean(0), ref.pred_sem_seg.data
    )
    assert torch.equal(got.pred_sem_seg.data, ref.pred_sem_seg.data)
    assert got.img_path == 'x.png'


@pytest.mark.parametrize('name', SEG_BASES)
def test_segmentation_base_configs_use_the_chunked_segmentor(name):
    cfg = Config.fromfile(ROOT / 'configs/_base_/models' / name)
    assert cfg.model.type == 'ChunkedEncoderDecoder'


PEAK = """
import resource, sys, torch
from mmengine.config import Config
from mmengine.registry import DefaultScope
from mmseg.registry import MODELS
from mmseg.structures import SegDataSample
import vitspec
cfg = Config.fromfile(sys.argv[1])
cfg.model.decode_head.norm_cfg = dict(type='BN')
with DefaultScope.overwrite_default_scope('mmseg'):
    model = MODELS.build(cfg.model).eval()
logits = torch.randn(1, 150, 125, 125)
side = int(sys.argv[2])
samples = [SegDataSample(metainfo=dict(ori_shape=(side, side), img_shape=(side, side)))]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with torch.no_grad():
    model.postprocess_result(logits, samples)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024)
"""


@pytest.mark.slow
def test_a_large_test_image_stays_within_the_bound():
    """1600 x 1600, 150 classes: mmseg's postprocess grows the process by 1.56 GB (measured).
    Here one band of at most 256 MiB, the label map (20 MB) and the model-width rows a band
    reads: 421 MB measured."""
    config = ROOT / 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
    out = subprocess.run(
        [sys.executable, '-c', PEAK, str(config), '1600'],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    grown = int(out.stdout.split()[-1])
    assert grown < 600 * 2**20, f'peak grew by {grown / 2**20:.0f} MiB'
