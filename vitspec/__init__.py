"""vitspec: dense prediction with Vision Transformer backbone techniques.

Importing the package registers its modules in the mmseg / mmdet registries and makes
mmengine's checkpoint loading safe (weights_only with an allow-list). ``vitspec.layers`` is
plain PyTorch and stays importable without OpenMMLab.
"""
import warnings

from . import layers  # noqa: F401

try:
    import mmdet.models  # noqa: F401
    import mmseg.models  # noqa: F401
except ImportError as exc:  # e.g. mmcv without compiled ops
    warnings.warn(f'vitspec: OpenMMLab modules not registered ({exc}); run tools/install.sh')
else:
    # engine first: it installs the safe checkpoint loader
    from . import engine, models, datasets, evaluation  # noqa: F401

__version__ = '0.1.0'
