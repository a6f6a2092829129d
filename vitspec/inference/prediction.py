"""Running a loaded model on images held in memory: its own test pipeline (the resize, the
normalisation of its data preprocessor), batched, in the precision it was trained in (float32,
or autocast for a config with a mixed-precision optimizer wrapper) unless told otherwise."""

import contextlib
from typing import List, Optional, Sequence

import numpy as np
import torch
from mmengine.dataset import Compose, pseudo_collate
from mmengine.registry import DefaultScope

from vitspec.engine.optim.finite_loss_amp import AMP_WRAPPERS
from vitspec.errors import BadImage, ConfigError

from .model_loading import LoadedModel

ARRAY_LOADER = 'LoadImageFromNDArray'


def prepared(pipeline, img: np.ndarray) -> dict:
    """``pipeline(dict(img=img))``; BadImage when the test pipeline cannot prepare the image
    (a 1 x 20000 strip resized to the model's scale has a side of 0 pixels)."""
    try:
        return pipeline(dict(img=img))
    except Exception as exc:
        h, w = img.shape[:2]
        reason = str(exc).strip().splitlines()[-1:] or ['']
        raise BadImage(
            f'{h}x{w} pixels: the test pipeline cannot prepare it ({type(exc).__name__}: '
            f'{reason[0][:200]}); predict it at its own scale in windows (--slide)'
        ) from exc


# Steps that check a dataset sample's files; a user's image has none.
DATASET_FILE_STEPS = frozenset({'CheckSampleFiles'})


def inference_pipeline(pipeline_cfg: Sequence[dict]) -> List[dict]:
    """The test pipeline with images given as arrays: the first loading transform (ours or
    mmcv's) reads the array, and the loaders and checks of dataset files, which a user's image
    lacks, go."""
    steps, image_loader_seen = [], False
    for step in pipeline_cfg:
        kind = str(step.get('type', ''))
        if kind in DATASET_FILE_STEPS:
            continue
        if 'Load' not in kind:
            steps.append(dict(step))
        elif not image_loader_seen and 'Image' in kind:
            steps.append(dict(type=ARRAY_LOADER))
            image_loader_seen = True
    if not image_loader_seen:
        raise ConfigError(f'the test pipeline has no image loader: {list(pipeline_cfg)}')
    return steps


def test_pipeline_cfg(cfg) -> list:
    loader = cfg.get('test_dataloader') or {}
    pipeline = (loader.get('dataset') or {}).get('pipeline') or cfg.get('test_pipeline')
    if not pipeline:
        raise ConfigError('the config has no test pipeline (test_dataloader.dataset.pipeline)')
    return list(pipeline)


def trained_mixed(cfg) -> Optional[str]:
    """The autocast dtype name the config trains with ('' for mmengine's default), or None for
    float32 training."""
    wrapper = cfg.get('optim_wrapper') or {}
    if wrapper.get('type') not in AMP_WRAPPERS:
        return None
    return wrapper.get('dtype') or ''


def autocast_dtype(device: torch.device, name: str = '') -> torch.dtype:
    """``name`` ('float16', 'bfloat16', '' for the device's choice) on ``device``: bfloat16 on
    CPUs (their float16 autocast is slow) and on GPUs unless float16 is named or bfloat16 is
    unsupported."""
    if device.type != 'cuda':
        return torch.bfloat16
    if name == 'float16' or not torch.cuda.is_bf16_supported():
        return torch.float16
    return torch.bfloat16


class Predictor:
    """``predict([bgr arrays])`` -> the model's data samples, outputs at each image's size.

    Args:
        loaded: a model from ``load_model``.
        amp: True: autocast (``autocast_dtype``); False: float32; None: as the model was
            trained (its config's optimizer wrapper).
    """

    def __init__(self, loaded: LoadedModel, amp: Optional[bool] = None):
        self.loaded = loaded
        self.scope = loaded.cfg.get('default_scope', 'mmseg')
        trained = trained_mixed(loaded.cfg)
        self.amp = trained is not None if amp is None else amp
        self.dtype_name = trained or ''
        with DefaultScope.overwrite_default_scope(self.scope):
            self.pipeline = Compose(inference_pipeline(test_pipeline_cfg(loaded.cfg)))

    @property
    def device(self) -> torch.device:
        return next(self.loaded.model.parameters()).device

    def precision(self):
        if not self.amp:
            return contextlib.nullcontext()
        dtype = autocast_dtype(self.device, self.dtype_name)
        return torch.autocast(self.device.type, dtype=dtype)

    def predict(self, images: Sequence[np.ndarray]) -> list:
        with DefaultScope.overwrite_default_scope(self.scope):
            packed = [prepared(self.pipeline, img) for img in images]
        batch = pseudo_collate(packed)
        with torch.no_grad(), self.precision():
            return self.loaded.model.test_step(batch)
