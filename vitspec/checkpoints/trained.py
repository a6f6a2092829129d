"""The one way every tool reads a trained model's checkpoint with its config.

A checkpoint written by training holds its config (mmengine saves it as ``meta['cfg']``). A
config given beside it is compared with that one before any weight goes into a model
(config/saved.py): a config that builds another model from the same parameters (a plain config
on a checkpoint trained without the attention's skip connection, an FCN config on a depth
model) would load without a missing key and measure a model nobody trained. Without a config,
the saved one builds the model. tools/test.py, tools/infer.py, tools/export.py and the analysis
tools all come through ``read_trained``.
"""

from typing import NamedTuple, Union

from mmengine.config import Config
from mmengine.utils import import_modules_from_strings

from vitspec.config.load import load_config
from vitspec.config.saved import check_saved_config, saved_config
from vitspec.errors import CheckpointError, ConfigError
from vitspec.fileio import safe_torch_load


class TrainedCheckpoint(NamedTuple):
    checkpoint: dict  # the file's contents: state_dict, meta
    cfg: Config  # the config that builds its model: the one given (checked) or the saved one


def read_trained(
    checkpoint: str,
    config: Union[str, Config, None] = None,
    check_config: bool = True,
    mmap: bool = False,
) -> TrainedCheckpoint:
    """Read ``checkpoint`` safely (weights only, fileio's allow-list) and the config that
    builds its model. ``config`` (a path, ``vitspec::`` name or Config) is checked against the
    saved one unless ``check_config`` is False; without it the saved one is used, and a file
    that holds none (converted, released) is a ConfigError. ``mmap``: tensors mapped, not read.
    Raises the saved-config check's SavedConfigMismatch for a config of another model."""
    ckpt = safe_torch_load(str(checkpoint), map_location='cpu', mmap=mmap)
    if not isinstance(ckpt, dict):
        raise CheckpointError(f'{checkpoint} holds no checkpoint dict')
    if config is not None:
        cfg = config if isinstance(config, Config) else load_config(str(config))
        if check_config:
            check_saved_config(ckpt, cfg, str(checkpoint))
        return TrainedCheckpoint(ckpt, cfg)
    cfg = saved_config(ckpt)
    if cfg is None:
        raise ConfigError(
            f'{checkpoint} holds no training config (meta.cfg), e.g. a converted or released '
            f'file: name the config that builds its model too (CONFIG CHECKPOINT)'
        )
    _import_custom_modules(cfg)
    return TrainedCheckpoint(ckpt, cfg)


def _import_custom_modules(cfg: Config) -> None:
    # Config.fromstring does not import them as Config.fromfile does: the registrations of
    # the saved config's modules (vitspec's own) come from here.
    imports = cfg.get('custom_imports')
    if imports:
        import_modules_from_strings(**imports)
