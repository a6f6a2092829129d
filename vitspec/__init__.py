"""vitspec: dense prediction with Vision Transformer backbone techniques.

Importing the package registers its modules in the mmseg / mmdet registries and makes
mmengine's checkpoint loading safe (weights_only with an allow-list).
"""
from . import engine, layers  # noqa: F401  (engine first: it installs the safe loader)
from . import models  # noqa: F401

__version__ = '0.1.0'
