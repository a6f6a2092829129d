"""Keys of the config dicts that a consumer reads by name, checked against what it reads.

mmseg's EncoderDecoder reads ``model.test_cfg.mode`` with a default, so ``test_cfg.mdoe='slide'``
tests whole images without a word, and ``mode='slide'`` without ``crop_size`` / ``stride`` ends in
an AttributeError mid-test; a metric takes unknown options into ``**kwargs`` (``iou_metric=[...]``
scores mIoU, exit 0); mmdet's mask heads read their ``train_cfg`` with defaults; a loop's
unknown option is a bare TypeError. Checked here, each with the key meant:

- ``model.test_cfg`` of a segmentor that runs EncoderDecoder's inference (mmseg's
  EncoderDecoder and its subclasses, ours and EoMT included, DepthEstimator): its keys,
  ``mode``'s value, and ``crop_size`` / ``stride`` for sliding windows;
- ``train_cfg`` of a MaskFormer / Mask2Former head (``model.decode_head``, ``model.panoptic_head``);
- a two-stage detector's ``model.test_cfg`` / ``model.train_cfg`` (``rpn``, ``rpn_proposal``,
  ``rcnn`` and their keys: ``rcnn.score_thres`` was a silently ignored typo of ``score_thr``);
- ``val_evaluator`` / ``test_evaluator``: each metric's options against its constructor;
- ``train_cfg`` / ``val_cfg`` / ``test_cfg`` (the loops): their options against the loop's.
"""

import inspect

from mmdet.models.dense_heads import MaskFormerHead
from mmdet.models.detectors import TwoStageDetector
from mmengine.evaluator import BaseMetric
from mmengine.registry import LOOPS, METRICS, MODELS
from mmseg.models.segmentors import DepthEstimator, EncoderDecoder

from vitspec.config.key_matching import constructor_options, unknown_option
from vitspec.errors import did_you_mean

# what EncoderDecoder.inference / slide_inference read of test_cfg (mmseg 1.2.2)
SEGMENTOR_TEST_CFG = ('mode', 'crop_size', 'stride')
SLIDE_KEYS = ('crop_size', 'stride')
# the most derived first: DepthEstimator is an EncoderDecoder
TEST_MODES = {DepthEstimator: ('whole', 'slide', 'slide_flip'), EncoderDecoder: ('whole', 'slide')}
# what mmdet's MaskFormerHead / Mask2FormerHead read of train_cfg (mmdet 3.3.0)
MASK_HEAD_TRAIN_CFG = ('assigner', 'sampler', 'num_points', 'oversample_ratio')
MASK_HEAD_TRAIN_CFG += ('importance_sample_ratio',)
REGISTRY_KEYS = ('type', '_scope_')  # read by the registry, not the constructor
LOOP_KEYS = (*REGISTRY_KEYS, 'by_epoch')  # and by_epoch by the Runner
# what mmdet 3.3's TwoStageDetector, RPNHead / AnchorHead, StandardRoIHead, BBoxHead and
# FCNMaskHead read of a two-stage detector's test_cfg / train_cfg
_PROPOSALS = ('nms_pre', 'max_per_img', 'nms', 'min_bbox_size', 'score_thr')
TWO_STAGE_CFG = dict(
    test_cfg=dict(rpn=_PROPOSALS, rcnn=('score_thr', 'nms', 'max_per_img', 'mask_thr_binary')),
    train_cfg=dict(
        rpn=('assigner', 'sampler', 'allowed_border', 'pos_weight', 'debug'),
        rpn_proposal=_PROPOSALS,
        rcnn=('assigner', 'sampler', 'pos_weight', 'mask_size', 'debug'),
    ),
)
DEFAULT_LOOPS = dict(
    train_cfg=('EpochBasedTrainLoop', 'IterBasedTrainLoop'), val_cfg='ValLoop', test_cfg='TestLoop'
)


def nested_key_errors(cfg) -> list:
    """Every problem found in the dicts above, one line each."""
    scope = cfg.get('default_scope')
    model = cfg.get('model')
    problems = []
    if isinstance(model, dict):
        problems += segmentor_test_cfg_errors(model, scope)
        problems += mask_head_train_cfg_errors(model, scope)
        problems += detector_cfg_errors(model, scope)
    for name in ('val_evaluator', 'test_evaluator'):
        problems += evaluator_errors(name, cfg.get(name), scope)
    for name in DEFAULT_LOOPS:
        problems += loop_errors(name, cfg.get(name), scope)
    return problems


def resolve_type(registry, spec: dict, scope, type_=None):
    """The class ``spec['type']`` (or ``type_``) names, in the spec's own ``_scope_`` or
    ``scope``; None when it names none."""
    type_ = spec.get('type') if type_ is None else type_
    if inspect.isclass(type_):
        return type_
    if not isinstance(type_, str):
        return None
    with registry.switch_scope_and_registry(spec.get('_scope_', scope)) as switched:
        try:
            return switched.get(type_)
        except KeyError:  # a scope prefix of a package that is not installed
            return None


def _unknown(where: str, key: str, known, owner: str) -> str:
    hint = did_you_mean(key, known, typos_only=True)
    if hint:
        return f"{where}.{key}: {owner} does not read '{key}'; {hint}"
    return f"{where}.{key}: {owner} does not read '{key}'; it reads {', '.join(sorted(known))}"


def segmentor_test_cfg_errors(model: dict, scope) -> list:
    cls = resolve_type(MODELS, model, scope)
    test_cfg = model.get('test_cfg')
    if cls is None or not isinstance(test_cfg, dict) or not runs_encoder_decoder_inference(cls):
        return []
    owner = f'{cls.__name__} (EncoderDecoder inference)'
    problems = [
        _unknown('model.test_cfg', key, SEGMENTOR_TEST_CFG, owner)
        for key in test_cfg
        if key not in SEGMENTOR_TEST_CFG
    ]
    modes = next((m for base, m in TEST_MODES.items() if issubclass(cls, base)), ('whole', 'slide'))
    mode = test_cfg.get('mode', 'whole')
    if mode not in modes:
        hint = did_you_mean(str(mode), modes, typos_only=True)
        hint = f'; {hint}' if hint else ''
        problems.append(
            f'model.test_cfg.mode={mode!r}: {owner} runs {" or ".join(map(repr, modes))}{hint}'
        )
    elif mode.startswith('slide'):
        for key in SLIDE_KEYS:
            value = test_cfg.get(key)
            if not (isinstance(value, (list, tuple)) and len(value) == 2):
                problems.append(
                    f'model.test_cfg.{key}={value!r}: mode={mode!r} needs {key} as (height, '
                    f"width), e.g. model.test_cfg.{key}=(512,512) (the window's size and its "
                    f'step: crop_size and stride)'
                )
    return problems


def runs_encoder_decoder_inference(cls) -> bool:
    return issubclass(cls, (EncoderDecoder, DepthEstimator))  # EoMT: an EncoderDecoder too


def detector_cfg_errors(model: dict, scope) -> list:
    cls = resolve_type(MODELS, model, scope)
    if cls is None or not issubclass(cls, TwoStageDetector):
        return []
    problems = []
    for name, parts in TWO_STAGE_CFG.items():
        cfg = model.get(name)
        if not isinstance(cfg, dict):
            continue
        owner = f'{cls.__name__} ({name})'
        for part, value in cfg.items():
            if part not in parts:
                problems.append(_unknown(f'model.{name}', part, parts, owner))
            elif isinstance(value, dict):
                problems += [
                    _unknown(f'model.{name}.{part}', key, parts[part], f'{owner}.{part}')
                    for key in value
                    if key not in parts[part]
                ]
    return problems


def mask_head_train_cfg_errors(model: dict, scope) -> list:
    problems = []
    for name in ('decode_head', 'panoptic_head'):
        head = model.get(name)
        if not isinstance(head, dict):
            continue
        cls = resolve_type(MODELS, head, scope)
        train_cfg = head.get('train_cfg')
        if cls is None or not issubclass(cls, MaskFormerHead) or not isinstance(train_cfg, dict):
            continue
        problems += [
            _unknown(f'model.{name}.train_cfg', key, MASK_HEAD_TRAIN_CFG, cls.__name__)
            for key in train_cfg
            if key not in MASK_HEAD_TRAIN_CFG
        ]
    return problems


def evaluator_errors(name: str, evaluator, scope) -> list:
    if isinstance(evaluator, dict) and 'metrics' in evaluator and 'type' not in evaluator:
        evaluator = evaluator['metrics']  # mmengine's dict(metrics=...) form
    if isinstance(evaluator, (list, tuple)):
        return [
            e
            for i, metric in enumerate(evaluator)
            for e in _metric_errors(f'{name}.{i}', metric, scope)
        ]
    return _metric_errors(name, evaluator, scope)


def _metric_errors(where: str, metric, scope) -> list:
    if not isinstance(metric, dict):
        return []
    cls = resolve_type(METRICS, metric, scope)
    if cls is None or not issubclass(cls, BaseMetric):
        return []
    options, open_ended = constructor_options(cls)
    problems = []
    for key in metric:
        if key in REGISTRY_KEYS or key in options:
            continue
        if key == 'metrics':
            problems.append(
                f"{where}.metrics: {cls.__name__} has no option 'metrics' (mmengine then "
                f'builds an Evaluator of type {cls.__name__}); several metrics are a list: '
                f"{where.split('.')[0]} = [dict(type='{cls.__name__}', ...), dict(type=...)]"
            )
            continue
        problems.append(unknown_option(where, cls.__name__, key, options, not open_ended))
    return [p for p in problems if p]


def loop_errors(name: str, loop, scope) -> list:
    if not isinstance(loop, dict):
        return []
    if 'type' in loop:
        cls = resolve_type(LOOPS, loop, scope)
    else:
        default = DEFAULT_LOOPS[name]
        if isinstance(default, tuple):
            default = default[0] if loop.get('by_epoch', True) else default[1]
        cls = resolve_type(LOOPS, {}, 'mmengine', default)
    if cls is None:
        return []
    options, open_ended = constructor_options(cls)
    options -= {'runner', 'dataloader', 'evaluator'}  # given by the Runner
    problems = []
    for key in loop:
        if key in LOOP_KEYS or key in options:
            continue
        problems.append(unknown_option(name, cls.__name__, key, options, not open_ended))
    return [p for p in problems if p]
