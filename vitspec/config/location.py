"""Where vitspec's configs are: the one answer for every part of the package.

An installed package carries them in ``vitspec/.mim/configs`` (where mmseg keeps its own); in a
source checkout that folder is a link to the top-level ``configs/``, and a checkout without the
link still has ``configs/`` beside the package. ``vitspec::ade20k/x.py`` names a config there,
from any folder."""

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # vitspec/
SHIPPED = PACKAGE_DIR / '.mim' / 'configs'
CHECKOUT = PACKAGE_DIR.parent / 'configs'
SCOPE = 'vitspec::'
DATASETS = [  # the folders of runnable configs, each with its task
    ('ade20k', 'semantic segmentation'),
    ('cityscapes', 'semantic segmentation'),
    ('voc', 'semantic segmentation'),
    ('coco', 'instance segmentation'),
    ('nyu', 'monocular depth'),
    ('kitti', 'monocular depth'),
    ('demo', 'toy runs on data/demo'),
]


def config_dir() -> Path:
    """The configs/ tree (``_base_``, the dataset folders and their ledgers), resolved."""
    for candidate in (SHIPPED, CHECKOUT):
        if candidate.is_dir():
            return candidate.resolve()
    raise FileNotFoundError(
        f'vitspec finds no configs: neither {SHIPPED} (an installed package) nor {CHECKOUT} '
        '(a source checkout) exists; reinstall vitspec (pip install .) or use a full checkout'
    )


def config_path(name: str) -> str:
    """The file a config name stands for: ``vitspec::<path below configs/>`` is read in
    config_dir(); any other name is a file path and is returned as given."""
    if not name.startswith(SCOPE):
        return name
    path = config_dir() / name[len(SCOPE) :]
    if not path.is_file():
        raise FileNotFoundError(f'{name}: no such config in {config_dir()}')
    return str(path)
