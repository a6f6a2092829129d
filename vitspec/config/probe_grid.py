"""A probe grid config: a single-probe config plus ``probe_grid``, which names K heads, each with
its own settings (learning rate, weight decay, taps, head type), to train on one frozen backbone
in one run (DINOv2's linear classification eval trains its grid of classifiers this way:
facebookresearch/dinov2 dinov2/eval/linear.py).

    probe_grid = dict(
        lr=[1e-4, 1e-3],                           # a product of settings: 4 heads,
        taps=dict(last1=[11], last4=[8, 9, 10, 11]),   # named lr0p0001_last1, ...
        select=('mIoU', 'greater'),   # optional: the single config's save_best, or its metric's
    )

or ``heads=[dict(name='a', lr=1e-3, taps=[11]), ...]``, each head written out. Each setting of
the product is a list of values (``taps``: a dict of named tap sets), so
``--cfg-options probe_grid.lr=[0.001,0.002]`` chooses another grid.

A head's settings are changes to the single-probe config (SETTINGS says which keys each one
sets), so the config a head stands for -- its single run -- is the grid config without
``probe_grid`` and with them applied (``head_configs``). ``grid_config`` turns a grid config into
the config that trains them all: the ProbeGrid model, one optimizer with each head's groups,
every head evaluated, and the best one written as a checkpoint of its own config.
"""

import copy
import re
from typing import Dict

from mmengine.config import Config

from vitspec.errors import ConfigError, ConfigKeyError, did_you_mean

GRID_KEY = 'probe_grid'
NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_+-]*$')  # no '.': it names the head's module
# the metric a head is chosen by when the config's checkpoint hook names none
SELECT_BY_METRIC = {'IoUMetric': ('mIoU', 'greater'), 'DepthErrorMetric': ('rmse', 'less')}
RULES = ('greater', 'less')
FROZEN_ONLY = (
    'a probe grid needs a frozen backbone (model.backbone.frozen_stages = num_layers): its heads '
    'share one backbone pass, and a backbone that trains would move under all of them at once, '
    'so no head would train as its single run does'
)


def _lr(cfg: Config, value, name: str) -> None:
    cfg.optim_wrapper.optimizer.lr = _number(value, name, 'lr', positive=True)


def _weight_decay(cfg: Config, value, name: str) -> None:
    cfg.optim_wrapper.optimizer.weight_decay = _number(value, name, 'weight_decay')


def _taps(cfg: Config, value, name: str) -> None:
    backbone, head = cfg.model.backbone, cfg.model.decode_head
    depth = backbone.get('num_layers')
    if (
        not isinstance(value, (list, tuple))
        or not value
        or any(not isinstance(i, int) or isinstance(i, bool) for i in value)
        or len(set(value)) != len(value)
    ):
        raise ConfigError(
            f'probe_grid head {name!r}: taps must be distinct block indices, got {value!r}'
        )
    beyond = [i for i in value if not 0 <= i < depth]
    if beyond:
        raise ConfigError(
            f'probe_grid head {name!r}: taps {beyond} are outside the backbone, whose blocks '
            f'are 0 to {depth - 1}'
        )
    keep_tuple = isinstance(backbone.get('out_indices'), tuple)
    backbone.out_indices = tuple(sorted(value)) if keep_tuple else sorted(value)
    kind = head.get('type')
    if kind == 'LinearBNHead':
        head.in_channels = [backbone.embed_dims] * len(value)
        if head.get('in_index') is not None:
            head.in_index = list(range(len(value)))
    elif kind == 'LinearDepthHead':
        head.num_inputs = len(value)
    else:
        raise ConfigError(
            f'probe_grid head {name!r}: taps are known for LinearBNHead and LinearDepthHead, '
            f'not for decode_head type {kind!r}'
        )


def _bn(cfg: Config, value, name: str) -> None:
    head = cfg.model.decode_head
    if head.get('type') != 'LinearDepthHead' or not isinstance(value, bool):
        raise ConfigError(
            f'probe_grid head {name!r}: bn=True/False chooses between the linear and the BN '
            f'linear depth head (LinearDepthHead); got bn={value!r} for {head.get("type")!r}'
        )
    head.with_bn = value
    if value and head.get('norm_cfg') is None:
        head.norm_cfg = dict(type='SyncBN', requires_grad=True)


# setting -> how it changes the single-probe config
SETTINGS = {'lr': _lr, 'weight_decay': _weight_decay, 'taps': _taps, 'bn': _bn}


def _number(value, name: str, key: str, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ConfigError(f'probe_grid head {name!r}: {key} must be a number >= 0, got {value!r}')
    if positive and value == 0:
        raise ConfigError(f'probe_grid head {name!r}: {key} must be above 0')
    return float(value)


def is_grid(cfg: Config) -> bool:
    return cfg.get(GRID_KEY) is not None


def _product(grid: dict) -> list:
    """The heads of a product of settings, each named by the values that vary."""
    heads = [dict(name=[])]
    for key in SETTINGS:
        if key not in grid:
            continue
        values = grid[key]
        if key == 'taps' and isinstance(values, dict):
            named = list(values.items())
        elif isinstance(values, (list, tuple)) and key != 'taps':
            named = [(_value_name(key, v), v) for v in values]
        else:
            kind = 'a dict of named tap sets' if key == 'taps' else 'a list of values'
            raise ConfigError(f'{GRID_KEY}.{key} must be {kind}, got {values!r}')
        if not named:
            raise ConfigError(f'{GRID_KEY}.{key} is empty: a grid needs at least one head')
        heads = [
            dict(head, **{key: value}, name=head['name'] + [label])
            for head in heads
            for label, value in named
        ]
    return [dict(head, name='_'.join(head['name'])) for head in heads]


def _value_name(key: str, value) -> str:
    if key == 'bn':
        return 'bn' if value else 'nobn'
    short = dict(lr='lr', weight_decay='wd')[key]
    text = f'{value:.3g}' if isinstance(value, (int, float)) else str(value)
    return short + text.replace('.', 'p')  # 0.001 -> lr0p001


def _heads(cfg: Config) -> list:
    grid = cfg.get(GRID_KEY)
    if not isinstance(grid, dict):
        raise ConfigError(f'{GRID_KEY} must be a dict of settings, got {type(grid).__name__}')
    known = ('heads', 'select', *SETTINGS)
    unknown = sorted(set(grid) - set(known))
    if unknown:
        hint = did_you_mean(unknown[0], known)
        raise ConfigKeyError(
            f'{GRID_KEY}: unknown keys {unknown}{" (" + hint + ")" if hint else ""}; known: '
            f'{", ".join(known)}'
        )
    product = [key for key in SETTINGS if key in grid]
    if product and 'heads' in grid:
        raise ConfigError(
            f'{GRID_KEY}: give either heads=[...] or a product of settings ({", ".join(product)}), '
            f'not both'
        )
    heads = _product(grid) if product else grid.get('heads')
    if not isinstance(heads, (list, tuple)) or not heads:
        raise ConfigError(f'{GRID_KEY}.heads is empty: a grid needs at least one head')
    seen = set()
    for head in heads:
        name = head.get('name') if isinstance(head, dict) else None
        if not isinstance(name, str) or not NAME.match(name):
            raise ConfigError(
                f'{GRID_KEY}.heads: every head needs a name of letters, digits and _+- '
                f'(it names its metrics and its checkpoint), got {head!r}'
            )
        if name in seen:
            raise ConfigError(f'{GRID_KEY}.heads: two heads are named {name!r}')
        seen.add(name)
        for key in head:
            if key != 'name' and key not in SETTINGS:
                hint = did_you_mean(key, SETTINGS)
                raise ConfigKeyError(
                    f'{GRID_KEY} head {name!r}: {key!r} is not a head setting'
                    f'{" (" + hint + ")" if hint else ""}; settings: {", ".join(SETTINGS)}'
                )
    return list(heads)


STEPPING_WRAPPERS = ('FiniteLossOptimWrapper', 'FiniteLossAmpOptimWrapper')


def _check_runnable(cfg: Config) -> None:
    kind = (cfg.get('optim_wrapper') or {}).get('type')
    if kind not in STEPPING_WRAPPERS:
        raise ConfigError(
            f'a probe grid steps its heads in turn through {" or ".join(STEPPING_WRAPPERS)} '
            f'(update_params_in_turn); optim_wrapper.type is {kind!r}'
        )
    if cfg.get('test_with_tta'):
        raise ConfigError(
            'a probe grid evaluates its heads without test-time augmentation: drop '
            'test_with_tta, and test the best head (best_probe.pth) with it'
        )


def _check_frozen(cfg: Config) -> None:
    backbone = cfg.model.get('backbone') or {}
    if backbone.get('frozen_stages') != backbone.get('num_layers'):
        raise ConfigError(
            f'{FROZEN_ONLY} (frozen_stages={backbone.get("frozen_stages")!r}, '
            f'num_layers={backbone.get("num_layers")!r})'
        )


def head_configs(cfg: Config) -> Dict[str, Config]:
    """Head name -> the single-probe config the head stands for."""
    heads = _heads(cfg)
    _check_frozen(cfg)
    _check_runnable(cfg)
    single = copy.deepcopy(cfg)
    single.pop(GRID_KEY)
    configs = {}
    for head in heads:
        one = copy.deepcopy(single)
        for key, value in head.items():
            if key != 'name':
                SETTINGS[key](one, value, head['name'])
        configs[head['name']] = one
    return configs


def selection(cfg: Config):
    """(metric key, 'greater' or 'less'): the config's save_best, else its metric's main key."""
    chosen = cfg[GRID_KEY].get('select')
    checkpoint = (cfg.get('default_hooks') or {}).get('checkpoint') or {}
    if chosen is None and isinstance(checkpoint.get('save_best'), str):
        chosen = (checkpoint['save_best'], checkpoint.get('rule') or 'greater')
    if chosen is None:
        evaluator = cfg.get('val_evaluator') or {}
        chosen = SELECT_BY_METRIC.get(
            evaluator.get('type') if isinstance(evaluator, dict) else None
        )
    if not isinstance(chosen, (list, tuple)) or len(chosen) != 2 or chosen[1] not in RULES:
        raise ConfigError(
            f'{GRID_KEY}.select: (metric key, "greater" or "less") to choose the best head by, '
            f'got {chosen!r}'
        )
    return tuple(chosen)


def grid_config(cfg: Config) -> Config:
    """The config that trains every head of ``cfg``'s grid in one run (unchanged if it is not a
    grid config, or already this form)."""
    if not is_grid(cfg) or cfg.model.get('type') == 'ProbeGrid':
        return cfg
    heads = head_configs(cfg)
    select = selection(cfg)
    names = list(heads)
    grid = copy.deepcopy(cfg)
    probes = {n: c.model.to_dict() for n, c in heads.items()}
    grid.model = dict(
        type='ProbeGrid',
        data_preprocessor=cfg.model.get('data_preprocessor'),  # not the Runner's top-level one
        probes=probes,
    )
    wrapper = {
        k: v for k, v in cfg.optim_wrapper.items() if k not in ('constructor', 'paramwise_cfg')
    }
    wrapper.update(
        constructor='ProbeGridOptimWrapperConstructor',
        probes={n: c.optim_wrapper.to_dict() for n, c in heads.items()},
    )
    grid.optim_wrapper = wrapper
    for key in ('val_evaluator', 'test_evaluator'):
        if cfg.get(key) is not None:
            grid[key] = dict(type='ProbeGridMetric', metric=cfg[key], heads=names)
    if (grid.get('default_hooks') or {}).get('checkpoint'):
        grid.default_hooks.checkpoint.save_best = None  # the grid's metrics carry head names
    grid.custom_hooks = [
        *(cfg.get('custom_hooks') or []),
        dict(
            type='ProbeGridSelectionHook',
            select=list(select),
            configs={n: c.pretty_text for n, c in heads.items()},
        ),
    ]
    grid.model_wrapper_cfg = dict(type='ProbeGridDataParallel')
    return grid
