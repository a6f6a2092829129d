"""vitspec: dense prediction with Vision Transformer backbone techniques.

Importing the package registers its modules in the mmseg / mmdet registries and changes nothing
else in mmengine: safe checkpoint loading and atomic writes come from
``vitspec.fileio.install_safe_io()``, which the runtime configs' ``SafeIOHook`` calls.
``vitspec.layers`` is plain PyTorch and stays importable without OpenMMLab.
"""

import warnings

from . import layers  # noqa: F401
from .version import __version__

try:
    import mmdet.models  # noqa: F401
    import mmseg.models  # noqa: F401
except ImportError as exc:  # e.g. mmcv without compiled ops
    warnings.warn(f'vitspec: OpenMMLab modules not registered ({exc}); run tools/install.sh')
else:
    from . import datasets, engine, evaluation, models  # noqa: F401

__all__ = ['__version__']
