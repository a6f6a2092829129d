"""A run whose targets cannot train its heads stops at the start, naming the images.

mmseg trains to the end on labels that are all ``ignore_index`` (loss 0, ``acc_seg`` 100) or
depth maps without a valid pixel (the loss is 0 by construction), and reports a label beyond
the head's classes as ``IndexError: Target 12 is out of bounds`` deep in the loss; mmdet's
detectors (DINO's denoising queries, Plain-DETR, Mask R-CNN's RoI head) and EoMT panoptic
likewise fail on a box label beyond the head's classes with a raw IndexError.
"""

from typing import List

import torch
from mmdet.models.detectors import BaseDetector
from mmengine import dist
from mmengine.hooks import Hook
from mmengine.model import is_model_wrapper
from mmengine.registry import HOOKS
from mmseg.models.segmentors import DepthEstimator

from vitspec.errors import ConfigError, DataFileError
from vitspec.models.detector_classes import detector_classes
from vitspec.models.probe_grid import ProbeGrid

MAX_NAMED = 8


@HOOKS.register_module()
class TargetsCheckHook(Hook):
    """Checks the ground truth of the first ``num_batches`` training batches (default 10; the
    whole run if it is shorter), as the data loader gives them, before the model sees them.

    - Segmentation: a label value that is neither ``ignore_index`` nor below a head's
      ``num_classes`` is a DataFileError naming the value, ``num_classes``, the head and the
      image. No pixel other than ``ignore_index`` in all of those batches (summed over the
      processes) is a DataFileError naming the images.
    - Depth: no pixel with a depth > 0 inside the decode head's [min_depth, max_depth] in all
      of those batches is a DataFileError naming the images.
    - Detection (and panoptic, mmdet's detectors): an instance label that is not below the
      detector's number of classes (detector_classes) is a DataFileError naming the label, the
      number and the image.
    - At the start of training, a segmentation head or a detector whose ``num_classes`` is
      smaller than the number of classes of the training set (its metainfo ``classes``) is a
      ConfigError naming both.

    Ten batches: a real dataset whose first 10 batches hold no labelled pixel at all is broken,
    while one batch alone may be a random crop of ignored pixels. The cost is one comparison
    per label pixel in those batches.
    """

    def __init__(self, num_batches: int = 10):
        self.num_batches = num_batches
        self._to_check = self._seen = self._valid = 0
        self._images: List[str] = []

    def before_train(self, runner) -> None:
        model = _unwrap(runner.model)
        self._to_check = min(self.num_batches, runner.max_iters - runner.iter)
        self._seen = self._valid = 0
        self._images = []
        if isinstance(model, DepthEstimator):
            return
        dataset = runner.train_dataloader.dataset
        classes = getattr(dataset, 'metainfo', {}).get('classes')
        if classes is None:
            return
        if isinstance(model, BaseDetector):
            heads = [('the detector', type(model).__name__, detector_classes(model))]
        else:
            heads = [(n, type(h).__name__, h.num_classes) for n, h in _seg_heads(model)]
        for name, kind, num_classes in heads:
            if num_classes < len(classes):
                raise ConfigError(
                    f'{name} ({kind}) has num_classes={num_classes} but the training set '
                    f"({type(dataset).__name__}) has {len(classes)} classes: set the head's "
                    f'num_classes to {len(classes)}, or choose {num_classes} classes with the '
                    f"dataset's metainfo"
                )

    def before_train_iter(self, runner, batch_idx: int, data_batch=None) -> None:
        if self._seen >= self._to_check or not data_batch:
            return
        model = _unwrap(runner.model)
        if isinstance(model, ProbeGrid):  # its heads' settings change no class or depth range
            model = model.first_probe
        for sample in data_batch.get('data_samples') or []:
            image = sample.metainfo.get('img_path', '<unnamed image>')
            if isinstance(model, BaseDetector):  # its gt_sem_seg (panoptic stuff) is mmdet's
                if 'gt_instances' in sample:
                    _check_instance_labels(sample.gt_instances, model, image)
                continue
            if 'gt_depth_map' in sample:
                valid = _valid_depth(sample.gt_depth_map.data, model.decode_head)
            elif 'gt_sem_seg' in sample:
                valid = _valid_labels(sample.gt_sem_seg.data, model, image)
            else:
                continue
            self._valid += int(valid)
            self._images.append(image)
        self._seen += 1
        if self._seen == self._to_check and self._images:
            self._check_some_valid(model)

    def _check_some_valid(self, model) -> None:
        total = torch.tensor(self._valid, dtype=torch.int64)
        dist.all_reduce(total)
        if total.item():
            return
        if isinstance(model, DepthEstimator):
            what, rule = 'depth', _depth_rule(model.decode_head)
        else:
            what, rule = 'label', f'every pixel is ignore_index={_ignore_index(model.decode_head)}'
        images = list(dict.fromkeys(self._images))
        more = len(images) - MAX_NAMED
        raise DataFileError(
            f'nothing to learn: no valid {what} pixel in the first {self._seen} training '
            f'batches ({rule}); images: {", ".join(images[:MAX_NAMED])}'
            + (f' and {more} more' if more > 0 else '')
        )


def _check_instance_labels(instances, model, image: str) -> None:
    labels = getattr(instances, 'labels', None)
    if labels is None or not labels.numel():
        return
    num_classes = detector_classes(model)
    bad = labels[(labels >= num_classes) | (labels < 0)]
    if bad.numel():
        raise DataFileError(
            f'instance labels {bad.unique()[:10].tolist()} in {image} are outside the '
            f'detector ({type(model).__name__}) num_classes={num_classes}'
        )


def _unwrap(model):
    return model.module if is_model_wrapper(model) else model


def _seg_heads(model):
    """(name, head) of the decode head and each auxiliary head."""
    heads = [('decode_head', getattr(model, 'decode_head', None))]
    aux = getattr(model, 'auxiliary_head', None)
    if isinstance(aux, torch.nn.ModuleList):
        heads += [(f'auxiliary_head[{i}]', h) for i, h in enumerate(aux)]
    else:
        heads.append(('auxiliary_head', aux))
    return [(n, h) for n, h in heads if h is not None and hasattr(h, 'num_classes')]


def _ignore_index(head) -> int:
    return getattr(head, 'ignore_index', 255)  # mmseg's default


def _valid_labels(labels: torch.Tensor, model, image: str) -> int:
    for name, head in _seg_heads(model):
        ignore = _ignore_index(head)
        bad = labels[(labels != ignore) & ((labels >= head.num_classes) | (labels < 0))]
        if bad.numel():
            values = bad.unique()[:10].tolist()
            raise DataFileError(
                f'label values {values} in {image} are outside {name} '
                f'({type(head).__name__}) num_classes={head.num_classes} '
                f'(ignore_index={ignore})'
            )
    return int((labels != _ignore_index(model.decode_head)).sum())


def _depth_range(head):
    return getattr(head, 'min_depth', 0.0), getattr(head, 'max_depth', float('inf'))


def _valid_depth(depth: torch.Tensor, head) -> int:
    lo, hi = _depth_range(head)
    return int(((depth > 0) & (depth >= lo) & (depth <= hi)).sum())


def _depth_rule(head) -> str:
    lo, hi = _depth_range(head)
    return f'none > 0 and within [{lo}, {hi}] m'
