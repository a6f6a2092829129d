"""One frozen backbone, several heads: probes trained apart on the same frozen backbone (say an
ADE20K segmentation head and an NYU depth head) predicting on one image with one backbone run.

    heads = load_heads(['seg/iter_500.pth', 'depth/iter_100.pth'])
    outputs = MultiHeadPredictor(heads).predict([bgr])   # {head name: [data sample]}

Each checkpoint is loaded as ``load_model`` loads one (its saved config, strict weights); their
backbones must be the same (backbone_match.py: equal module configs, exactly equal tensors)
and the models must prepare the same backbone input, else the load is refused naming the
first difference. SpecViT heads may read different blocks (``out_indices``) and the CLS token
or not: the one run computes the union and each head gets what its own backbone returned, so
every head's output is the one it gives alone. Segmenters and depth models of mmseg with a
backbone of their own (not EoMT, whose queries run inside the backbone, nor mmdet's detectors).
"""

import copy
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import numpy as np
import torch
from mmengine.dataset import pseudo_collate
from mmengine.registry import DefaultScope

from vitspec.errors import ConfigError
from vitspec.models.shared_backbone import BackboneView, SharedBackbone

from .backbone_match import (
    check_same_backbone_config,
    check_same_backbone_weights,
    check_same_input,
    input_preparation,
    selects_outputs,
)
from .large_images import slide_predict_heads
from .model_loading import DEPTH, SEGMENTATION, LoadedModel, _models_registry, load_model
from .prediction import Predictor, inference_pipeline, prepared, test_pipeline_cfg, trained_mixed


class MultiHeadModel(torch.nn.Module):
    """``shared``: the one backbone; ``heads``: each checkpoint's model (its backbone replaced
    by a view of the shared one), named ``names``; ``input_from``: the head whose test
    pipeline and data preprocessor prepare the input of all."""

    def __init__(self, shared: SharedBackbone, heads: List[LoadedModel], names, input_from=0):
        super().__init__()
        self.shared = shared
        self.models = torch.nn.ModuleList(head.model for head in heads)
        self.heads = list(heads)
        self.names = list(names)
        self.input_from = input_from


def head_names(checkpoints: Sequence) -> List[str]:
    """Each checkpoint's folder (training's work dir, named after its config), with the file's
    stem where two share a folder, and its position where that still clashes."""
    paths = [Path(c) for c in checkpoints]
    parents = [p.parent.name or p.stem for p in paths]
    names = [
        parent if parents.count(parent) == 1 else f'{parent}_{path.stem}'
        for parent, path in zip(parents, paths)
    ]
    return [name if names.count(name) == 1 else f'{name}_{i}' for i, name in enumerate(names)]


def load_heads(
    checkpoints: Sequence,
    configs: Optional[Sequence] = None,
    device: str = 'cpu',
    input_from: Optional[int] = None,
    check_config: bool = True,
) -> MultiHeadModel:
    """The models of ``checkpoints`` (with ``configs``, one per checkpoint or None, as
    ``load_model`` takes them) on one shared backbone.

    ``input_from``: None requires every model to prepare the same backbone input (ConfigError
    otherwise); an index feeds all the input that model prepares. CheckpointError when the
    backbones differ (config or tensors), naming the first difference.
    """
    if len(checkpoints) < 2:
        raise ConfigError('several heads need at least two checkpoints')
    configs = list(configs) if configs is not None else [None] * len(checkpoints)
    if len(configs) != len(checkpoints):
        raise ConfigError(f'{len(configs)} configs for {len(checkpoints)} checkpoints')
    if input_from is not None and not 0 <= input_from < len(checkpoints):
        raise ConfigError(f'input_from={input_from}: there are {len(checkpoints)} heads')
    heads = [load_model(ckpt, cfg, device, check_config) for ckpt, cfg in zip(checkpoints, configs)]
    for head in heads:
        check_has_own_backbone(head)
    first = heads[0]
    registry = _models_registry(first.cfg.get('default_scope', 'mmseg'))
    inputs = [input_preparation(h.cfg, inference_pipeline(test_pipeline_cfg(h.cfg))) for h in heads]
    first_state = first.model.backbone.state_dict()
    for head, head_input in zip(heads[1:], inputs[1:]):
        names = (first.checkpoint, head.checkpoint)
        check_same_backbone_config(
            first.cfg.model.backbone, head.cfg.model.backbone, names, registry
        )
        check_same_backbone_weights(first_state, head.model.backbone.state_dict(), names)
        if input_from is None:
            check_same_input(inputs[0], head_input, names)
    shared = share_backbone(heads, registry, device)
    return MultiHeadModel(shared, heads, head_names(checkpoints), input_from or 0)


def check_has_own_backbone(head: LoadedModel) -> None:
    model = head.model
    # a submodule of its own: EoMT's ``backbone`` is a property (its network's ViT)
    if head.task not in (SEGMENTATION, DEPTH) or 'backbone' not in model._modules:
        raise ConfigError(
            f'{head.checkpoint}: a {type(model).__name__} has no backbone apart from its head '
            f'(EoMT runs its queries inside the backbone; detectors are not supported), so it '
            f'cannot share one: several heads are mmseg segmenters and depth models'
        )


def share_backbone(heads: List[LoadedModel], registry, device) -> SharedBackbone:
    """One backbone for all: for SpecViT, built anew to return the union of the heads' outputs
    (with the CLS token if any head reads it) and given the first's weights; else the first's
    own. Each head's backbone becomes a view of it."""
    first = heads[0]
    if not selects_outputs(first.cfg.model.backbone):
        shared = SharedBackbone(first.model.backbone)
        for head in heads:
            head.model.backbone = BackboneView(shared)
        return shared
    wanted = [
        (list(h.model.backbone.out_indices), h.model.backbone.output_cls_token) for h in heads
    ]
    union = sorted({i for indices, _ in wanted for i in indices})
    cfg = dict(first.cfg.model.backbone, out_indices=union, init_cfg=None)
    cfg['output_cls_token'] = any(cls for _, cls in wanted)
    scope = first.cfg.get('default_scope', 'mmseg')
    with DefaultScope.overwrite_default_scope(scope):
        backbone = registry.build(cfg)
    backbone.load_state_dict(first.model.backbone.state_dict())
    shared = SharedBackbone(backbone.to(device).eval(), union)
    for head, (indices, cls) in zip(heads, wanted):
        head.model.backbone = BackboneView(shared, indices, cls)
    return shared


class MultiHeadPredictor:
    """``predict([bgr arrays])`` -> {head name: its data samples}: the input head's pipeline
    and data preprocessor, one backbone run per batch, each head's own prediction; BadImage for
    an image that pipeline cannot prepare (as ``Predictor``).

    ``amp``: True, False, or None for autocast when every head was trained in mixed precision.
    """

    def __init__(self, multi: MultiHeadModel, amp: Optional[bool] = None):
        self.multi = multi
        self.inputs = Predictor(multi.heads[multi.input_from], amp)
        if amp is None:
            self.inputs.amp = all(trained_mixed(h.cfg) is not None for h in multi.heads)

    @property
    def device(self) -> torch.device:
        return self.inputs.device

    def slide(self, bgr: np.ndarray, **options) -> Dict[str, np.ndarray]:
        """{head name: its ``slide_predict`` result} for ``bgr``: each batch of windows
        prepared once by the input head, the backbone run once for all heads (``options``:
        ``slide_predict_heads``')."""
        try:
            results = slide_predict_heads(self.inputs, self.multi.heads, bgr, **options)
        finally:
            self.multi.shared.release()
        return dict(zip(self.multi.names, results))

    def predict(self, images: Sequence[np.ndarray]) -> Dict[str, list]:
        source = self.multi.heads[self.multi.input_from]
        with DefaultScope.overwrite_default_scope(self.inputs.scope):
            batch = pseudo_collate([prepared(self.inputs.pipeline, img) for img in images])
        outputs = {}
        with torch.no_grad(), self.inputs.precision():
            data = source.model.data_preprocessor(batch, False)
            try:
                for name, head in zip(self.multi.names, self.multi.heads):
                    samples = copy.deepcopy(data['data_samples'])
                    outputs[name] = head.model(data['inputs'], samples, mode='predict')
            finally:
                self.multi.shared.release()
        return outputs
