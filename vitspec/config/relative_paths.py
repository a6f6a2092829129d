"""A file not found at a relative path: say it was looked up in the current folder, and where it is.

The paths of a config (``data_root``, ``ann_file``, ...) are relative to the folder a tool runs
in, not to the config file, so a run started from another folder fails inside mmseg or mmdet
with a bare "No such file or directory: 'data/demo/...'".
"""

import os
import os.path as osp
from contextlib import contextmanager

DEMO_FOLDER = osp.join('data', 'demo') + os.sep
DEMO_HINT = ' The demo data is written by tools/make_demo_data.py, into data/demo/ of the checkout.'


@contextmanager
def relative_paths_explained(config_path: str, cfg=None):
    """Re-raise a FileNotFoundError of a relative path with the current folder, and the folder
    above the config file where that path exists, if any (``cfg``'s ``data_root`` then shows
    the --cfg-options that finds it)."""
    try:
        yield
    except FileNotFoundError as exc:
        path = exc.filename
        if not isinstance(path, str) or osp.isabs(path):
            raise
        data_root = cfg.get('data_root') if cfg is not None else None
        raise FileNotFoundError(relative_path_message(path, config_path, data_root)) from None


def relative_path_message(path: str, config_path: str, data_root=None) -> str:
    cwd = os.getcwd()
    message = (
        f'No such file or directory: {path!r}. The path is relative, so it is looked up in the '
        f'current folder, {cwd}, which is the folder the command was run from (not the '
        f"config's folder)."
    )
    found = folder_holding(path, config_path)
    if found is None:
        demo = DEMO_HINT if osp.normpath(path).startswith(DEMO_FOLDER) else ''
        return (
            f'{message} Run from the folder the paths of the config are relative to, or give '
            f'absolute ones (e.g. --cfg-options data_root=/abs/path).{demo}'
        )
    fix = f'run from that folder (cd {found})'
    if isinstance(data_root, str) and not osp.isabs(data_root) and _under(path, data_root):
        fix += f', or give --cfg-options data_root={osp.join(found, data_root)}'
    return f'{message} It is there under {found}: {fix}.'


def folder_holding(path: str, config_path: str):
    """The nearest folder above the config file in which ``path`` exists (a checkout holding
    configs/ and data/), or None."""
    folder = osp.dirname(osp.abspath(config_path))
    while True:
        if osp.exists(osp.join(folder, path)):
            return folder
        parent = osp.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _under(path: str, root: str) -> bool:
    root = osp.normpath(root)
    return osp.normpath(path) == root or osp.normpath(path).startswith(root + os.sep)
