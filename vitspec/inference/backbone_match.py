"""Whether separately trained models share one backbone, and see one input (multi_head.py).

Two backbones are the same when they build the same module (their configs equal once each
argument's default is filled in, leaving out what only training reads and, for SpecViT, which
outputs it returns) and hold equal tensors: exactly equal, as a frozen backbone's copies are
(a tolerance would let a fine-tuned backbone pass as frozen, and its heads would then read
features they were not trained on). Their input is the same when the test pipelines (less the
loaders and the packing) and the data preprocessors (less the label padding) are equal.
"""

import inspect
from typing import Optional, Sequence

import torch

from vitspec.errors import CheckpointError, ConfigError

# read by training only: they change no weight and no output in eval mode
TRAINING_ONLY = ('drop_path_rate', 'with_cp', 'frozen_stages', 'init_cfg', 'pretrained')
# SpecViT's choice of outputs: a shared run returns the union and each head takes its own
OUTPUT_CHOICE = ('out_indices', 'output_cls_token')
SELECTABLE_OUTPUTS = ('SpecViT',)
LABEL_ONLY_PREPROCESSING = ('seg_pad_val',)


def selects_outputs(backbone_cfg: dict) -> bool:
    return str(backbone_cfg.get('type')).split('.')[-1] in SELECTABLE_OUTPUTS


def backbone_arguments(backbone_cfg: dict, registry) -> dict:
    """The backbone's constructor arguments, defaults filled in, without those that do not
    change the module a frozen backbone is in inference."""
    args = {k: v for k, v in dict(backbone_cfg).items() if k not in TRAINING_ONLY}
    try:
        cls = registry.get(backbone_cfg['type'])
    except KeyError:
        cls = None
    if cls is not None:
        for name, param in inspect.signature(cls.__init__).parameters.items():
            if param.default is not inspect.Parameter.empty and name not in TRAINING_ONLY:
                args.setdefault(name, param.default)
    if selects_outputs(backbone_cfg):
        for name in OUTPUT_CHOICE:
            args.pop(name, None)
    return {k: _plain(v) for k, v in args.items()}


def _plain(value):
    """Tuples and lists compare equal (a config written either way builds the same)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def first_difference(first: dict, other: dict) -> Optional[str]:
    for key in sorted(set(first) | set(other)):
        if first.get(key, '<absent>') != other.get(key, '<absent>'):
            return key
    return None


def check_same_backbone_config(first: dict, other: dict, names: Sequence[str], registry) -> None:
    a, b = backbone_arguments(first, registry), backbone_arguments(other, registry)
    key = first_difference(a, b)
    if key is not None:
        raise CheckpointError(
            f'{names[1]} has another backbone than {names[0]}: backbone.{key} is '
            f'{b.get(key, "<absent>")!r} there and {a.get(key, "<absent>")!r} here; heads '
            f'share a backbone only when it is the same frozen one'
        )


def check_same_backbone_weights(first: dict, other: dict, names: Sequence[str]) -> None:
    """``first`` and ``other``: the two backbones' state dicts; equal means the same keys and
    exactly equal tensors (shape, dtype and values)."""
    for key in [*first, *(k for k in other if k not in first)]:
        if key not in first or key not in other:
            where = names[0] if key in first else names[1]
            raise CheckpointError(
                f'{names[1]} has another backbone than {names[0]}: backbone.{key} is only in '
                f'{where}'
            )
        a, b = first[key], other[key]
        if a.shape != b.shape or a.dtype != b.dtype or not torch.equal(a, b):
            detail = (
                f'shape {tuple(b.shape)} vs {tuple(a.shape)}'
                if a.shape != b.shape
                else f'max abs difference {(a.double() - b.double()).abs().max().item():.3g}'
                if a.dtype == b.dtype
                else f'dtype {b.dtype} vs {a.dtype}'
            )
            raise CheckpointError(
                f'{names[1]} has another backbone than {names[0]}: backbone.{key} differs '
                f'({detail}); heads share a backbone only when it is the same frozen one '
                f'(tensors exactly equal)'
            )


def input_preparation(cfg, steps: Sequence[dict]) -> dict:
    """What makes a model's backbone input: its test steps after loading, less the packing
    (whose meta keys the backbone never reads), and its data preprocessor, less label-only
    settings."""
    preprocessor = {
        k: _plain(v)
        for k, v in dict(cfg.model.get('data_preprocessor') or {}).items()
        if k not in LABEL_ONLY_PREPROCESSING
    }
    pipeline = [_plain(dict(s)) for s in steps if not str(s.get('type', '')).startswith('Pack')]
    return dict(test_pipeline=pipeline, data_preprocessor=preprocessor)


def check_same_input(first: dict, other: dict, names: Sequence[str]) -> None:
    for part in ('data_preprocessor', 'test_pipeline'):
        if first[part] != other[part]:
            raise ConfigError(
                f'{names[1]} prepares its backbone input otherwise than {names[0]}: its '
                f'{part} is {other[part]} there and {first[part]} here, so one backbone run '
                f'cannot serve both. To feed every head the input one of them prepares (the '
                f'others then predict on an input they were not tested on), pass '
                f'input_from=INDEX (tools/infer.py --input-of INDEX)'
            )
