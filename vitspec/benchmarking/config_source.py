"""A training config as its train script reads it, and the input its training steps get: the
crop size and the batch.

Paths may name an installed package's config with mmengine's scope prefix
(``mmseg::mae/mae-base_upernet_8xb2-amp-160k_ade20k-512x512.py``), resolved as mmengine resolves
such a ``_base_`` entry (the package's ``.mim/configs``), and ours as ``vitspec::demo/x.py``.
"""

import importlib.util
from pathlib import Path

from mmengine.config import Config

from vitspec.config.location import SCOPE, config_dir, config_path
from vitspec.errors import ConfigError, did_you_mean

# pipeline steps whose size is the training input's, in the order they are trusted
SIZED_STEPS = {'RandomCrop': 'crop_size', 'FixedSizePad': 'size', 'Pad': 'size'}


def resolve_config_path(path: str) -> str:
    """A local path as given; ``package::relative/path.py`` as the installed package's file."""
    if '::' not in path:
        return path
    if path.startswith(SCOPE):
        return config_path(path)
    resolved, _scope = Config._get_cfg_path(path, '')
    return resolved


def check_config_exists(path: str) -> None:
    """FileNotFoundError, before anything is built, for a config that does not exist: a local
    path, ``vitspec::x.py`` or ``package::x.py`` (an installed package's ``.mim/configs``),
    naming where it was looked for and the closest existing names."""
    if '::' not in path:
        if not Path(path).is_file():
            raise FileNotFoundError(f'config {path}: no such file{_closest(Path(path))}')
        return
    scope, _, relative = path.partition('::')
    if path.startswith(SCOPE):
        root = config_dir()
    else:
        spec = importlib.util.find_spec(scope) if scope.isidentifier() else None
        if spec is None or spec.origin is None:
            raise FileNotFoundError(
                f'config {path}: {scope!r} is no installed package; give a file path, '
                f'vitspec::<path below configs/> or e.g. mmseg::mae/<file>.py'
            )
        root = Path(spec.origin).parent / '.mim' / 'configs'
    if not (root / relative).is_file():
        raise FileNotFoundError(
            f'config {path}: no such config in {root}{_closest(root / relative, root)}'
        )


def _closest(missing: Path, root: Path = None) -> str:
    """'; did you mean ...' with up to three existing configs whose names are closest."""
    if root is None:
        root = missing.parent
        names = [p.name for p in root.glob('*.py')] if root.is_dir() else []
        wanted = missing.name
    else:
        names = [str(p.relative_to(root)) for p in root.rglob('*.py') if '_base_' not in p.parts]
        wanted = str(missing.relative_to(root))
    hint = did_you_mean(wanted, names, n=3)
    return f'; {hint}' if hint else ''


def load_config(path: str, cfg_options: dict = None) -> Config:
    """``Config.fromfile`` (which imports the config's ``custom_imports``), options merged."""
    cfg = Config.fromfile(resolve_config_path(path))
    if cfg_options:
        cfg.merge_from_dict(cfg_options)
    return cfg


def crop_size(cfg: Config) -> tuple:
    """(height, width) of a training input: the config's ``crop_size`` (mmseg's convention), the
    data preprocessor's fixed ``size``, the training pipeline's random crop or fixed pad, or
    the config's ``image_size`` (mmdet's); ConfigError naming what was looked for."""
    pipeline = cfg.get('train_dataloader', {}).get('dataset', {}).get('pipeline', [])
    candidates = [
        cfg.get('crop_size'),
        cfg.model.get('data_preprocessor', {}).get('size'),
        *(
            step.get(SIZED_STEPS[step.get('type')])
            for step in pipeline
            if isinstance(step, dict) and step.get('type') in SIZED_STEPS
        ),
        cfg.get('image_size'),
    ]
    for size in candidates:
        if size is not None:
            return (size, size) if isinstance(size, int) else tuple(size)
    raise ConfigError(
        'no training input size in the config: looked for crop_size, '
        f'model.data_preprocessor.size, {", ".join(SIZED_STEPS)} in the training pipeline '
        'and image_size'
    )


def train_batch_size(cfg: Config) -> int:
    return cfg.train_dataloader.batch_size
