"""TargetsCheckHook: targets that cannot train the heads stop the run in its first batches,
naming the images; labels beyond a head's classes name the value, the head and the image."""

import re
from functools import lru_cache
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from mmdet.registry import MODELS
from mmdet.structures import DetDataSample
from mmengine.config import Config
from mmengine.registry import RUNNERS, init_default_scope
from mmengine.structures import InstanceData, PixelData
from mmseg.models.segmentors import DepthEstimator
from mmseg.structures import SegDataSample
from PIL import Image

from tests.utils import ROOT
from vitspec.engine import TargetsCheckHook
from vitspec.errors import ConfigError, DataFileError
from vitspec.models.detector_classes import detector_classes

SEG_DEMO = ROOT / 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
DEPTH_DEMO = ROOT / 'configs/demo/lin4_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py'


class TinyDepth(DepthEstimator):
    """A DepthEstimator holding only its head: all the hook reads."""

    def __init__(self, head):
        torch.nn.Module.__init__(self)
        self.decode_head = head


def seg_head(num_classes=5, ignore_index=255):
    return SimpleNamespace(num_classes=num_classes, ignore_index=ignore_index)


def seg_model(num_classes=5, aux=None):
    return SimpleNamespace(decode_head=seg_head(num_classes), auxiliary_head=aux)


def runner_for(model, max_iters=100, classes=('a', 'b', 'c')):
    dataset = SimpleNamespace(metainfo=dict(classes=classes))
    return SimpleNamespace(
        model=model, max_iters=max_iters, iter=0, train_dataloader=SimpleNamespace(dataset=dataset)
    )


def seg_batch(labels, name='img'):
    samples = []
    for i, label in enumerate(labels):
        sample = SegDataSample(metainfo=dict(img_path=f'{name}{i}.jpg'))
        sample.gt_sem_seg = PixelData(data=torch.as_tensor(label)[None])
        samples.append(sample)
    return dict(inputs=[torch.zeros(3, 2, 2)] * len(labels), data_samples=samples)


def depth_batch(depths, name='img'):
    samples = []
    for i, depth in enumerate(depths):
        sample = SegDataSample(metainfo=dict(img_path=f'{name}{i}.jpg'))
        sample.gt_depth_map = PixelData(data=torch.as_tensor(depth, dtype=torch.float32)[None])
        samples.append(sample)
    return dict(inputs=[torch.zeros(3, 2, 2)] * len(depths), data_samples=samples)


def run_batches(hook, runner, batches):
    hook.before_train(runner)
    for i, batch in enumerate(batches):
        hook.before_train_iter(runner, i, batch)


def judged(hook):
    """(batches checked, valid target pixels counted in them) of the hook's last run."""
    return hook._seen, hook._valid


IGNORED = np.full((4, 4), 255)


def test_all_ignored_labels_stop_after_the_checked_batches():
    hook, runner = TargetsCheckHook(num_batches=3), runner_for(seg_model())
    hook.before_train(runner)
    for i in range(2):  # not judged before the last checked batch
        hook.before_train_iter(runner, i, seg_batch([IGNORED, IGNORED], name=f'b{i}_'))
    with pytest.raises(
        DataFileError,
        match=r'nothing to learn: no valid label pixel in the first 3 training batches '
        r'\(every pixel is ignore_index=255\); images: b0_0\.jpg, b0_1\.jpg, b1_0\.jpg',
    ):
        hook.before_train_iter(runner, 2, seg_batch([IGNORED], name='b2_'))


def test_one_labelled_pixel_is_enough():
    labelled = IGNORED.copy()
    labelled[0, 0] = 1
    hook, runner = TargetsCheckHook(num_batches=3), runner_for(seg_model())
    run_batches(hook, runner, [seg_batch([IGNORED]), seg_batch([labelled]), seg_batch([IGNORED])])
    assert judged(hook) == (3, 1)
    run_batches(hook, runner, [seg_batch([labelled])] * 5)  # a second run: counts afresh
    assert judged(hook) == (3, 3)


def test_a_run_shorter_than_the_checked_batches_is_judged_at_its_end():
    hook, runner = TargetsCheckHook(num_batches=10), runner_for(seg_model(), max_iters=2)
    with pytest.raises(DataFileError, match='in the first 2 training batches'):
        run_batches(hook, runner, [seg_batch([IGNORED])] * 2)


def test_only_the_first_batches_are_checked():
    hook, runner = TargetsCheckHook(num_batches=2), runner_for(seg_model())
    labelled = np.ones((4, 4))
    run_batches(hook, runner, [seg_batch([labelled])] * 2 + [seg_batch([IGNORED])] * 5)
    hook.before_train_iter(runner, 8, seg_batch([np.full((4, 4), 99)]))  # past the checks
    assert judged(hook) == (2, 32)  # the two labelled batches' 16 pixels each, nothing after


def test_label_beyond_the_decode_head_classes_is_named():
    hook, runner = TargetsCheckHook(), runner_for(seg_model(num_classes=5))
    label = np.array([[0, 4, 255], [12, 7, 12]])
    with pytest.raises(
        DataFileError,
        match=re.escape(
            'label values [7, 12] in img1.jpg are outside decode_head (SimpleNamespace) '
            'num_classes=5 (ignore_index=255)'
        ),
    ):
        run_batches(hook, runner, [seg_batch([np.zeros((2, 3)), label])])


def test_label_beyond_an_auxiliary_head_is_named():
    aux = torch.nn.ModuleList([torch.nn.Identity(), torch.nn.Identity()])
    aux[0].num_classes, aux[1].num_classes = 10, 3
    hook, runner = TargetsCheckHook(), runner_for(seg_model(num_classes=10, aux=aux))
    with pytest.raises(DataFileError, match=r'\[4\] in img0\.jpg are outside auxiliary_head\[1\]'):
        run_batches(hook, runner, [seg_batch([np.array([[0, 4]])])])


def test_head_with_fewer_classes_than_the_dataset_is_refused_at_the_start():
    runner = runner_for(seg_model(num_classes=2), classes=('a', 'b', 'c'))
    with pytest.raises(
        ValueError,
        match=re.escape(
            'decode_head (SimpleNamespace) has num_classes=2 but the training set '
            '(SimpleNamespace) has 3 classes'
        ),
    ):
        TargetsCheckHook().before_train(runner)


def depth_model():
    return TinyDepth(SimpleNamespace(num_classes=1, min_depth=1e-3, max_depth=10.0))


@pytest.mark.parametrize('value', [0.0, 25.0], ids=['no-measurement', 'beyond-max-depth'])
def test_depth_without_a_valid_pixel_stops(value):
    hook = TargetsCheckHook(num_batches=2)
    runner = runner_for(depth_model(), classes=tuple('x' * 40))  # depth: classes not compared
    with pytest.raises(
        DataFileError,
        match=r'no valid depth pixel in the first 2 training batches \(none > 0 and within '
        r'\[0\.001, 10\.0\] m\); images: img0\.jpg$',
    ):
        run_batches(hook, runner, [depth_batch([np.full((4, 4), value)])] * 2)


def test_depth_with_valid_pixels_passes():
    depth = np.zeros((4, 4))
    depth[1, 1] = 2.5
    hook, runner = TargetsCheckHook(num_batches=2), runner_for(depth_model())
    run_batches(hook, runner, [depth_batch([depth])] * 2)
    assert judged(hook) == (2, 2)


def test_detection_batches_are_not_judged():
    hook, runner = TargetsCheckHook(num_batches=1), runner_for(SimpleNamespace())
    hook.before_train(runner)
    hook.before_train_iter(runner, 0, dict(inputs=[], data_samples=[DetDataSample()]))
    assert judged(hook) == (1, 0) and hook._images == []  # no image judged: none to name


def first_config(folder):
    return sorted((ROOT / 'configs' / folder).glob('*.py'))[0]


@pytest.mark.parametrize(
    'path',
    [SEG_DEMO, DEPTH_DEMO] + [first_config(f) for f in ('ade20k', 'cityscapes', 'nyu', 'kitti')],
    ids=lambda p: p.name,
)
def test_segmentation_and_depth_configs_check_their_targets(path):
    assert 'TargetsCheckHook' in [h['type'] for h in Config.fromfile(path).custom_hooks]


def write_split(root, images, targets, target):
    """Two 64x64 images and their target maps, as the demo datasets lay them out."""
    for i in range(2):
        for folder in (images, targets):
            (root / folder).mkdir(parents=True, exist_ok=True)
        pixels = np.random.default_rng(i).integers(0, 255, (64, 64, 3), np.uint8)
        Image.fromarray(pixels).save(root / images / f'{i}.jpg')
        Image.fromarray(target).save(root / targets / f'{i}.png')
    return root


def tiny(cfg, root, work_dir):
    cfg.model.backbone.update(num_layers=1, embed_dims=32, num_heads=2, out_indices=[0])
    if cfg.model.type == 'DepthEstimator':
        cfg.model.backbone.out_indices = [0]
        cfg.model.decode_head.update(in_channels=32, num_inputs=1)
    else:
        cfg.model.decode_head.update(in_channels=32, channels=16)
    for split in ('train', 'val', 'test'):
        cfg[f'{split}_dataloader'].dataset.data_root = str(root)
    cfg.train_dataloader.batch_size = 2
    cfg.train_cfg.update(max_iters=3, val_interval=100)
    cfg.default_hooks.checkpoint.interval = 100
    cfg.work_dir, cfg.launcher = str(work_dir), 'none'
    return cfg


def test_demo_training_on_all_ignored_labels_stops(tmp_path):
    ignored = np.zeros((64, 64), np.uint8)  # 0 is ignored with reduce_zero_label
    for split in ('training', 'validation'):
        write_split(tmp_path / 'ade', f'images/{split}', f'annotations/{split}', ignored)
    runner = RUNNERS.build(tiny(Config.fromfile(SEG_DEMO), tmp_path / 'ade', tmp_path / 'w'))
    with pytest.raises(DataFileError, match=r'no valid label pixel .* images: .*training/'):
        runner.train()


def test_demo_training_on_empty_depth_maps_stops(tmp_path):
    empty = np.zeros((64, 64), np.uint16)
    for split in ('train', 'test'):
        write_split(tmp_path / 'nyu', f'images/{split}', f'annotations/{split}', empty)
    runner = RUNNERS.build(tiny(Config.fromfile(DEPTH_DEMO), tmp_path / 'nyu', tmp_path / 'w'))
    with pytest.raises(DataFileError, match=r'no valid depth pixel .* images: .*train/'):
        runner.train()


DET_DEMOS = {
    name: ROOT / 'configs/demo' / name
    for name in (
        'dino-4scale_specvit-tiny-p8_simplefpn_1xb4-300it_demo-coco-128x128.py',
        'plain-detr_specvit-tiny-p8_2xb4-800it_demo-coco-160x160.py',
        'mask-rcnn_specvit-tiny-p8_simplefpn_2xb4-800it_demo-coco-160x160.py',
        'eomt_specvit-tiny-p8_2xb4-500it_demo-coco-panoptic-128x128.py',
    )
}


@lru_cache(maxsize=None)
def demo_detector(name):
    init_default_scope('mmdet')
    return MODELS.build(Config.fromfile(DET_DEMOS[name]).model)


@pytest.mark.parametrize('name', sorted(DET_DEMOS), ids=lambda n: n.split('_')[0])
def test_detection_configs_check_their_targets(name):
    assert 'TargetsCheckHook' in [h['type'] for h in Config.fromfile(DET_DEMOS[name]).custom_hooks]


@pytest.mark.parametrize('name', sorted(DET_DEMOS), ids=lambda n: n.split('_')[0])
def test_a_detector_with_fewer_classes_than_the_dataset_is_refused_at_the_start(name):
    """DINO's denoising, Plain-DETR and Mask R-CNN gave a raw IndexError deep in training."""
    model = demo_detector(name)
    n = detector_classes(model)
    runner = runner_for(model, classes=tuple(f'c{i}' for i in range(n + 1)))
    with pytest.raises(ConfigError) as info:
        TargetsCheckHook().before_train(runner)
    assert f'({type(model).__name__}) has num_classes={n} but' in str(info.value)
    assert f'has {n + 1} classes' in str(info.value)
    TargetsCheckHook().before_train(runner_for(model, classes=tuple(range(n))))


def det_batch(labels, name='img'):
    sample = DetDataSample(metainfo=dict(img_path=f'{name}0.jpg'))
    sample.gt_instances = InstanceData(
        labels=torch.as_tensor(labels), bboxes=torch.zeros(len(labels), 4)
    )
    return dict(inputs=[torch.zeros(3, 2, 2)], data_samples=[sample])


def test_a_box_label_beyond_the_detector_classes_is_named():
    model = demo_detector(sorted(DET_DEMOS)[0])
    n = detector_classes(model)
    hook, runner = TargetsCheckHook(num_batches=2), runner_for(model, classes=None)
    run_batches(hook, runner, [det_batch([0, n - 1])])
    with pytest.raises(
        DataFileError, match=rf'labels \[{n}\] in img0\.jpg are outside the detector'
    ):
        run_batches(hook, runner, [det_batch([0, n])])
