"""The evaluation of a trained checkpoint by a config's Runner: the checkpoint as the config's
``load_from``, prediction pictures, test-time augmentation, and the scalar metrics of the result
(tools/test.py uses it)."""

from mmengine.registry import RUNNERS

from vitspec.engine.checked_runner import CheckedRunner
from vitspec.errors import ConfigError


def set_test_checkpoint(cfg, checkpoint: str) -> None:
    """``checkpoint`` as the config's ``load_from``, as mmseg's tools/test.py names it: the Runner
    loads it in ``runner.test()``. Strictly, whatever the config says: a test of half-loaded
    weights would print a wrong metric. So the Runner is a CheckedRunner (named here when the
    config names none), the load is never partial (``load_from_strict``) and never a resume."""
    runner_type = cfg.get('runner_type', CheckedRunner.__name__)
    runner_class = RUNNERS.get(runner_type) if isinstance(runner_type, str) else runner_type
    if not (isinstance(runner_class, type) and issubclass(runner_class, CheckedRunner)):
        raise ConfigError(
            f'runner_type {runner_type!r} is no CheckedRunner: the checkpoint to test would '
            'be loaded without refusing one of another model; leave runner_type out or name '
            'CheckedRunner'
        )
    cfg.runner_type = runner_type
    cfg.load_from = checkpoint
    cfg.resume = False
    cfg.pop('load_from_strict', None)


def enable_show_dir(cfg, show_dir):
    """Turn on the scope's visualization hook, writing pictures under ``show_dir``."""
    hook = cfg.default_hooks.get('visualization')
    if hook is None:
        raise KeyError('--show-dir needs default_hooks.visualization in the config')
    hook.update(draw=True, interval=1)
    cfg.visualizer.save_dir = show_dir
    cfg.visualizer.vis_backends = [dict(type='LocalVisBackend')]


def tta_requested(args, cfg) -> bool:
    """--tta, or a config whose published protocol always tests with TTA (test_with_tta)."""
    return bool(args.tta or cfg.get('test_with_tta', False))


def enable_tta(cfg):
    for key in ('tta_pipeline', 'tta_model'):
        if key not in cfg:
            raise KeyError(f'--tta needs {key} in the config')
    cfg.test_dataloader.dataset.pipeline = cfg.tta_pipeline
    cfg.tta_model.module = cfg.model
    cfg.model = cfg.tta_model


def scalar_metrics(metrics: dict) -> dict:
    """The numeric entries (Python or numpy scalars) of a metrics dict, as floats."""
    out = {}
    for key, value in metrics.items():
        try:
            out[key] = float(value)
        except (TypeError, ValueError):
            pass
    return out
