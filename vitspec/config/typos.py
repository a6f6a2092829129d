"""Config keys that are typos: found when the runner is built, before anything trains.

mmengine keeps any top-level key of a config as a free variable, so ``laod_from = 'x.pth'`` is
accepted and the run trains from scratch; and CheckpointHook takes unknown options into
``**kwargs`` and fails on them at its first save, after a whole interval of training. Checked:
top-level keys close to a field that mmengine, mmseg / mmdet's tools or vitspec read (a key
meant as a variable of the config is listed in ``intended_keys``); the options of every hook
in ``default_hooks`` and ``custom_hooks`` against its constructor; ``env_cfg``'s keys; the
keys of nested dicts that a consumer reads by name (nested_keys.py: a segmentor's test_cfg,
a mask head's train_cfg, the evaluators, the loops); the options of the parts built by type
below the model and the dataloaders, and named values of metric options (component_keys.py).
"""

import inspect

from mmengine.registry import HOOKS
from mmengine.runner import Runner

from vitspec.config.component_keys import component_errors
from vitspec.config.key_matching import constructor_options, unknown_option
from vitspec.config.nested_keys import nested_key_errors
from vitspec.errors import ConfigKeyError, did_you_mean

__all__ = ['check_config_keys', 'constructor_options']

OPT_OUT = 'intended_keys'
RUNNER_ARGUMENTS = tuple(inspect.signature(Runner.__init__).parameters)[1:]
TOP_LEVEL_FIELDS = frozenset(
    (
        *RUNNER_ARGUMENTS,
        # read by mmengine's Runner from its cfg, and by its builder
        'runner_type',
        'custom_imports',
        'model_wrapper_cfg',
        'find_unused_parameters',
        'sync_bn',
        'activation_checkpointing',
        'efficient_conv_bn_eval',
        'compile',
        'strategy',
        # mmseg's and mmdet's tools and configs
        'tta_model',
        'tta_pipeline',
        'vis_backends',
        # vitspec
        'load_from_strict',
        'test_with_tta',
        'probe_grid',
        OPT_OUT,
    )
)
ENV_CFG_KEYS = ('cudnn_benchmark', 'mp_cfg', 'dist_cfg', 'resource_limit')
HOOK_KEYS = ('type', 'priority')  # mmengine's own, not the constructor's
# Hooks whose **kwargs accept nothing: mmengine's CheckpointHook hands them to
# Runner.save_checkpoint, which takes no option beyond those the hook passes itself.
NO_EXTRA_OPTIONS = ('CheckpointHook',)


def check_config_keys(cfg) -> None:
    """ConfigKeyError listing every typo found, each with the key meant."""
    problems = [
        *top_level_typos(cfg),
        *env_cfg_typos(cfg),
        *hook_option_errors(cfg),
        *nested_key_errors(cfg),
        *component_errors(cfg, cfg.get('default_scope')),
    ]
    if problems:
        raise ConfigKeyError(
            'config keys that would be ignored or fail later:\n  ' + '\n  '.join(problems)
        )


def top_level_typos(cfg) -> list:
    intended = set(cfg.get(OPT_OUT) or ())
    problems = []
    for key in cfg.keys():
        if key in TOP_LEVEL_FIELDS or key in intended or key.startswith('_'):
            continue
        hint = did_you_mean(key, TOP_LEVEL_FIELDS, typos_only=True)
        if hint:
            problems.append(
                f"'{key}' is not a field the runner reads (mmengine keeps it as a variable and "
                f'ignores it); {hint} If it is meant as a variable, list it: '
                f"{OPT_OUT} = ['{key}']"
            )
    return problems


def env_cfg_typos(cfg) -> list:
    env_cfg = cfg.get('env_cfg') or {}
    problems = []
    for key in env_cfg:
        hint = '' if key in ENV_CFG_KEYS else did_you_mean(key, ENV_CFG_KEYS, typos_only=True)
        if hint:
            problems.append(f'env_cfg.{key}: mmengine ignores it; {hint}')
    return problems


def hook_option_errors(cfg) -> list:
    default_hooks = cfg.get('default_hooks') or {}
    hooks = [(f'default_hooks.{name}', hook) for name, hook in default_hooks.items()]
    hooks += [(f'custom_hooks.{i}', hook) for i, hook in enumerate(cfg.get('custom_hooks') or [])]
    problems = []
    for where, hook in hooks:
        if not isinstance(hook, dict) or 'type' not in hook:
            continue  # a Hook object, or no hook: mmengine handles those
        hook_class = resolve_hook(hook['type'], cfg.get('default_scope'))
        if hook_class is None:
            continue  # mmengine names an unknown type itself
        options, open_ended = constructor_options(hook_class)
        name = hook_class.__name__
        for key in hook:
            if key in HOOK_KEYS or key in options:
                continue
            refuse = not open_ended or name in NO_EXTRA_OPTIONS
            problems.append(unknown_option(where, name, key, options, refuse))
    return [p for p in problems if p]


def resolve_hook(hook_type, scope):
    if inspect.isclass(hook_type):
        return hook_type
    with HOOKS.switch_scope_and_registry(scope) as registry:
        return registry.get(hook_type)
