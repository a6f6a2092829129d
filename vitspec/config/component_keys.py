"""The options of the parts a config builds by type, one level below the model and the
dataloaders, checked against each part's constructor before anything is built; and the values of
options that take one of a few names.

mmengine builds these parts only when the runner reaches them, so a typo ends in a constructor
TypeError that names neither the config key nor the option meant (``pipeline.1.scael``,
``data_preprocessor.meen``), or in an option swallowed by ``**kwargs``. Checked here:
``model``'s ``data_preprocessor``, ``neck``, heads and their ``nms`` settings; each dataloader's
``dataset``, ``sampler`` and every transform of its pipeline (and of the transforms a
transform wraps); the named values of metric options (``iou_metrics``).
"""

from mmengine.registry import DATA_SAMPLERS, DATASETS, MODELS, TRANSFORMS

from vitspec.config.key_matching import constructor_options, unknown_option
from vitspec.config.nested_keys import (
    SEGMENTOR_TEST_CFG,
    resolve_type,
    runs_encoder_decoder_inference,
)
from vitspec.errors import closest_names, did_you_mean

REGISTRY_KEYS = ('type', '_scope_')
# model parts built from the model's config, each by the registry that builds it
MODEL_PARTS = ('data_preprocessor', 'neck', 'decode_head', 'auxiliary_head', 'rpn_head')
MODEL_PARTS += ('roi_head', 'bbox_head', 'panoptic_head')
DATALOADER_PARTS = dict(dataset=DATASETS, sampler=DATA_SAMPLERS)
# what mmcv's batched_nms / nms read of an ``nms`` dict (mmcv 2.1 ops/nms.py)
NMS_KEYS = ('type', 'iou_threshold', 'class_agnostic', 'split_thr', 'offset', 'score_threshold')
NMS_KEYS += ('max_num', 'min_score', 'sigma', 'method')
# metric options that take names from a fixed set: (metric class name, option) -> names
# (mmseg 1.2's IoUMetric.metrics, mmdet 3.3's CocoMetric.metrics)
METRIC_VALUES = {
    ('IoUMetric', 'iou_metrics'): ('mIoU', 'mDice', 'mFscore'),
    ('CocoMetric', 'metric'): ('bbox', 'segm', 'proposal', 'proposal_fast'),
}


def component_errors(cfg, scope) -> list:
    """Every problem found in the parts above, one line each."""
    problems = []
    model = cfg.get('model')
    if isinstance(model, dict):
        problems += typed_dict_errors('model', model, MODELS, scope)
        problems += head_test_cfg_errors(model, scope)
        for name in MODEL_PARTS:
            for where, part in _items(f'model.{name}', model.get(name)):
                problems += typed_dict_errors(where, part, MODELS, scope)
        problems += nms_errors(model)
    for top in cfg.keys():
        loader = cfg.get(top)
        if not top.endswith('_dataloader') or not isinstance(loader, dict):
            continue
        for name, registry in DATALOADER_PARTS.items():
            problems += typed_dict_errors(f'{top}.{name}', loader.get(name), registry, scope)
        dataset = loader.get('dataset')
        if isinstance(dataset, dict):
            problems += pipeline_errors(f'{top}.dataset.pipeline', dataset.get('pipeline'), scope)
    for top in ('val_evaluator', 'test_evaluator'):
        for where, metric in _items(top, cfg.get(top)):
            problems += metric_value_errors(where, metric)
    return problems


def _items(where: str, node):
    if isinstance(node, dict):
        yield where, node
    elif isinstance(node, (list, tuple)):
        for i, item in enumerate(node):
            yield f'{where}.{i}', item


def typed_dict_errors(where: str, spec, registry, scope) -> list:
    """The keys of ``spec`` (a dict with ``type``) that its class takes no option of."""
    if not isinstance(spec, dict) or 'type' not in spec:
        return []
    cls = resolve_type(registry, spec, scope)
    if cls is None:
        return []
    options, open_ended = constructor_options(cls)
    problems = [
        unknown_option(where, cls.__name__, key, options, not open_ended)
        for key in spec
        if key not in REGISTRY_KEYS and key not in options
    ]
    return [p for p in problems if p]


def pipeline_errors(where: str, pipeline, scope) -> list:
    problems = []
    for i, transform in enumerate(pipeline if isinstance(pipeline, (list, tuple)) else ()):
        problems += typed_dict_errors(f'{where}.{i}', transform, TRANSFORMS, scope)
        if isinstance(transform, dict):
            for key in ('transforms',):  # a transform that wraps others (RandomApply, TTA)
                inner = transform.get(key)
                if isinstance(inner, (list, tuple)) and all(isinstance(t, dict) for t in inner):
                    problems += pipeline_errors(f'{where}.{i}.{key}', inner, scope)
    return problems


def head_test_cfg_errors(model: dict, scope) -> list:
    """A segmentor's inference settings written into a head's test_cfg, where EncoderDecoder
    does not read them (it reads model.test_cfg)."""
    cls = resolve_type(MODELS, model, scope)
    if cls is None or not runs_encoder_decoder_inference(cls):
        return []
    problems = []
    for name in MODEL_PARTS:
        for where, part in _items(f'model.{name}', model.get(name)):
            test_cfg = part.get('test_cfg') if isinstance(part, dict) else None
            for key in test_cfg if isinstance(test_cfg, dict) else ():
                meant = key if key in SEGMENTOR_TEST_CFG else None
                meant = (
                    meant or (closest_names(key, SEGMENTOR_TEST_CFG, typos_only=True) or [None])[0]
                )
                if meant:
                    problems.append(
                        f'{where}.test_cfg.{key}: {cls.__name__} reads its inference settings '
                        f'from model.test_cfg, not from the head; did you mean '
                        f'model.test_cfg.{meant}?'
                    )
    return problems


def nms_errors(model: dict) -> list:
    problems = []
    for name in ('train_cfg', 'test_cfg'):
        cfg = model.get(name)
        for stage, settings in cfg.items() if isinstance(cfg, dict) else ():
            nms = settings.get('nms') if isinstance(settings, dict) else None
            for key in nms if isinstance(nms, dict) else ():
                if key not in NMS_KEYS:
                    where = f'model.{name}.{stage}.nms'
                    problems.append(unknown_option(where, "mmcv's nms", key, NMS_KEYS, True))
    return problems


def metric_value_errors(where: str, metric) -> list:
    if not isinstance(metric, dict) or not isinstance(metric.get('type'), str):
        return []
    problems = []
    for (type_name, option), names in METRIC_VALUES.items():
        if metric['type'].split('.')[-1] != type_name or option not in metric:
            continue
        values = metric[option]
        for value in values if isinstance(values, (list, tuple)) else [values]:
            if value not in names:
                hint = did_you_mean(str(value), names)
                hint = f'; {hint}' if hint else ''
                problems.append(
                    f"{where}.{option}: {value!r} is not one of {type_name}'s "
                    f'{", ".join(map(repr, names))}{hint}'
                )
    return problems
