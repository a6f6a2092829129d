"""Config keys that are typos: found when the runner is built, before anything trains.

mmengine keeps any top-level key of a config as a free variable, so ``laod_from = 'x.pth'`` is
accepted and the run trains from scratch; and CheckpointHook takes unknown options into
``**kwargs`` and fails on them at its first save, after a whole interval of training. Checked:
top-level keys close to a field that mmengine, mmseg / mmdet's tools or vitspec read (a key
meant as a variable of the config is listed in ``intended_keys``); the options of every hook
in ``default_hooks`` and ``custom_hooks`` against its constructor; ``env_cfg``'s keys.
"""

import inspect

from mmengine.registry import HOOKS
from mmengine.runner import Runner

from vitspec.errors import ConfigKeyError

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
    problems = [*top_level_typos(cfg), *env_cfg_typos(cfg), *hook_option_errors(cfg)]
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
        meant = closest(key, TOP_LEVEL_FIELDS)
        if meant:
            problems.append(
                f"'{key}' is not a field the runner reads (mmengine keeps it as a variable and "
                f"ignores it); did you mean '{meant}'? If it is meant as a variable, list it: "
                f"{OPT_OUT} = ['{key}']"
            )
    return problems


def env_cfg_typos(cfg) -> list:
    env_cfg = cfg.get('env_cfg') or {}
    problems = []
    for key in env_cfg:
        meant = None if key in ENV_CFG_KEYS else closest(key, ENV_CFG_KEYS)
        if meant:
            problems.append(f"env_cfg.{key}: mmengine ignores it; did you mean '{meant}'?")
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
            meant = closest(key, options)
            if meant:
                problems.append(
                    f"{where}.{key}: {name} has no option '{key}'; did you mean '{meant}'?"
                )
            elif not open_ended or name in NO_EXTRA_OPTIONS:
                problems.append(
                    f"{where}.{key}: {name} has no option '{key}'; its options: "
                    f'{", ".join(sorted(options))}'
                )
    return problems


def resolve_hook(hook_type, scope):
    if inspect.isclass(hook_type):
        return hook_type
    with HOOKS.switch_scope_and_registry(scope) as registry:
        return registry.get(hook_type)


def constructor_options(cls):
    """The named parameters of ``cls``'s constructor, following ``**kwargs`` up the classes it
    derives from; and whether it still takes any keyword (``**kwargs`` all the way up)."""
    options = set()
    for klass in cls.__mro__:
        if klass is object:
            return options, True
        if '__init__' not in vars(klass):
            continue
        parameters = list(inspect.signature(klass.__init__).parameters.values())[1:]
        options.update(
            p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        )
        if not any(p.kind is p.VAR_KEYWORD for p in parameters):
            return options, False
    return options, True


def closest(key: str, candidates) -> str:
    """The candidate within typo distance of ``key`` (1 edit for names under 9 characters, else
    2; a swap of neighbours is one edit, case ignored), the nearest first; '' when none."""
    limit = 1 if len(key) < 9 else 2
    scored = sorted((edit_distance(key.lower(), c.lower()), c) for c in candidates)
    return next((c for d, c in scored if c != key and d <= limit), '')


def edit_distance(a: str, b: str) -> int:
    """Optimal-string-alignment distance: insertions, deletions, substitutions, swaps."""
    previous2, previous = None, list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]
