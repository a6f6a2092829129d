"""A training config as its train script reads it, and the input its training steps get: the
crop size and the batch.

Paths may name an installed package's config with mmengine's scope prefix
(``mmseg::mae/mae-base_upernet_8xb2-amp-160k_ade20k-512x512.py``), resolved as mmengine resolves
such a ``_base_`` entry (the package's ``.mim/configs``).
"""

from mmengine.config import Config

# pipeline steps whose size is the training input's, in the order they are trusted
SIZED_STEPS = {'RandomCrop': 'crop_size', 'FixedSizePad': 'size', 'Pad': 'size'}


def resolve_config_path(path: str) -> str:
    """A local path as given; ``package::relative/path.py`` as the installed package's file."""
    if '::' not in path:
        return path
    resolved, _scope = Config._get_cfg_path(path, '')
    return resolved


def load_config(path: str, cfg_options: dict = None) -> Config:
    """``Config.fromfile`` (which imports the config's ``custom_imports``), options merged."""
    cfg = Config.fromfile(resolve_config_path(path))
    if cfg_options:
        cfg.merge_from_dict(cfg_options)
    return cfg


def crop_size(cfg: Config) -> tuple:
    """(height, width) of a training input: the config's ``crop_size`` (mmseg's convention), the
    data preprocessor's fixed ``size``, the training pipeline's random crop or fixed pad, or
    the config's ``image_size`` (mmdet's); ValueError naming what was looked for."""
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
    raise ValueError(
        'no training input size in the config: looked for crop_size, '
        f'model.data_preprocessor.size, {", ".join(SIZED_STEPS)} in the training pipeline '
        'and image_size'
    )


def train_batch_size(cfg: Config) -> int:
    return cfg.train_dataloader.batch_size
