"""Running a loaded model on images held in memory: its own test pipeline (the resize, the
normalisation of its data preprocessor), batched, in float32 or under autocast."""

import contextlib
from typing import List, Sequence

import numpy as np
import torch
from mmengine.dataset import Compose, pseudo_collate
from mmengine.registry import DefaultScope

from .model_loading import LoadedModel

ARRAY_LOADER = 'LoadImageFromNDArray'


def inference_pipeline(pipeline_cfg: Sequence[dict]) -> List[dict]:
    """The test pipeline with images given as arrays: the first loading transform (ours or
    mmcv's) reads the array, and the loaders of annotations, which a user's image lacks, go."""
    steps, image_loader_seen = [], False
    for step in pipeline_cfg:
        kind = str(step.get('type', ''))
        if 'Load' not in kind:
            steps.append(dict(step))
        elif not image_loader_seen and 'Image' in kind:
            steps.append(dict(type=ARRAY_LOADER))
            image_loader_seen = True
    if not image_loader_seen:
        raise ValueError(f'the test pipeline has no image loader: {list(pipeline_cfg)}')
    return steps


def test_pipeline_cfg(cfg) -> list:
    loader = cfg.get('test_dataloader') or {}
    pipeline = (loader.get('dataset') or {}).get('pipeline') or cfg.get('test_pipeline')
    if not pipeline:
        raise ValueError('the config has no test pipeline (test_dataloader.dataset.pipeline)')
    return list(pipeline)


def autocast_dtype(device: torch.device) -> torch.dtype:
    if device.type == 'cuda' and not torch.cuda.is_bf16_supported():
        return torch.float16
    return torch.bfloat16


class Predictor:
    """``predict([bgr arrays])`` -> the model's data samples, outputs at each image's size.

    Args:
        loaded: a model from ``load_model``.
        amp: run under autocast (bfloat16; float16 on a GPU without bfloat16).
    """

    def __init__(self, loaded: LoadedModel, amp: bool = False):
        self.loaded = loaded
        self.scope = loaded.cfg.get('default_scope', 'mmseg')
        self.amp = amp
        with DefaultScope.overwrite_default_scope(self.scope):
            self.pipeline = Compose(inference_pipeline(test_pipeline_cfg(loaded.cfg)))

    @property
    def device(self) -> torch.device:
        return next(self.loaded.model.parameters()).device

    def precision(self):
        if not self.amp:
            return contextlib.nullcontext()
        return torch.autocast(self.device.type, dtype=autocast_dtype(self.device))

    def predict(self, images: Sequence[np.ndarray]) -> list:
        with DefaultScope.overwrite_default_scope(self.scope):
            packed = [self.pipeline(dict(img=img)) for img in images]
        batch = pseudo_collate(packed)
        with torch.no_grad(), self.precision():
            return self.loaded.model.test_step(batch)
