"""Where vitspec's configs are: the one answer for every part of the package.

An installed package carries them in ``vitspec/.mim/configs`` (where mmengine reads ``vitspec::``
names, as it reads ``mmseg::`` ones); in a source checkout that folder is a link to the top-level
``configs/``, and a checkout without it still has ``configs/`` beside the package."""

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
SHIPPED = PACKAGE_DIR / '.mim' / 'configs'
CHECKOUT = PACKAGE_DIR.parent / 'configs'


def config_dir() -> Path:
    """The configs/ tree (``_base_``, the dataset folders and their ledgers), resolved."""
    for candidate in (SHIPPED, CHECKOUT):
        if candidate.is_dir():
            return candidate.resolve()
    raise FileNotFoundError(
        f'vitspec finds no configs: neither {SHIPPED} (an installed package) nor {CHECKOUT} '
        '(a source checkout) exists; reinstall vitspec (pip install .) or use a full checkout'
    )
