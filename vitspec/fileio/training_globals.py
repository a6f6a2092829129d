"""The plain-data globals that common training scripts pickle next to their weights.

MAE's ``util/misc.py save_model``, DeiT's / CaiT's ``main.py`` and timm's ``CheckpointSaver``
store the run's ``argparse.Namespace`` as ``args``; a script may have put a ``pathlib`` path
in it. Each entry here only builds plain data when unpickled: ``Namespace`` is made by
``__new__`` and filled by a ``__dict__`` update (it has no ``__setstate__``); a path is read back
as a *pure* path (string handling only, no file-system access, constructible on any OS); files
written under numpy 1.x name numpy's array / scalar rebuilders by their old module.
"""

import argparse
import pathlib

import numpy as np

# A path's pickle calls its class with the path's parts; the class name depends on the Python
# version that wrote it (3.13 moved the concrete classes to pathlib._local).
_PATH_NAMES = {
    'PurePosixPath': pathlib.PurePosixPath,
    'PosixPath': pathlib.PurePosixPath,
    'PureWindowsPath': pathlib.PureWindowsPath,
    'WindowsPath': pathlib.PureWindowsPath,
}
PATH_GLOBALS = [
    (pure, f'{module}.{name}')
    for module in ('pathlib', 'pathlib._local')
    for name, pure in _PATH_NAMES.items()
]

NUMPY1_GLOBALS = [
    (np._core.multiarray._reconstruct, 'numpy.core.multiarray._reconstruct'),
    (np._core.multiarray.scalar, 'numpy.core.multiarray.scalar'),
]

TRAINING_SCRIPT_GLOBALS = [argparse.Namespace, *PATH_GLOBALS, *NUMPY1_GLOBALS]
