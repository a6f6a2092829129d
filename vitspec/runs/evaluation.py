"""What tools/test.py does to a config and a Runner: prediction pictures, test-time augmentation,
strict checkpoint loading, and the metrics it prints."""

from vitspec.engine.checkpointing.strict_load import load_checkpoint_strict
from vitspec.fileio import using_safe_io


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


def load_strict(runner, checkpoint: str) -> dict:
    """A checkpoint of another model is an error here, whatever the config's runner_type: a test
    of half-loaded weights would print a wrong metric. Returns the checkpoint."""
    with using_safe_io():  # before runner.test(), so before SafeIOHook's before_run
        return load_checkpoint_strict(runner, checkpoint)


def scalar_metrics(metrics: dict) -> dict:
    """The numeric entries (Python or numpy scalars) of a metrics dict, as floats."""
    out = {}
    for key, value in metrics.items():
        try:
            out[key] = float(value)
        except (TypeError, ValueError):
            pass
    return out
