"""vitspec's build: pyproject.toml declares the package; this file adds the one step it cannot
declare, and keeps OpenMMLab habits working (``pip install -v -e .``, ``python setup.py develop``).

The step: a built package (wheel, ``pip install .``) carries a copy of the top-level ``configs/``
as ``vitspec/.mim/configs`` (where mmseg keeps its own), in which vitspec reads
``vitspec::<path>`` config names. An editable install needs no copy: the checkout's
``vitspec/.mim/configs`` is a link to ``configs/``."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

CONFIGS = Path(__file__).resolve().parent / 'configs'
SHIPPED = Path('vitspec', '.mim', 'configs')  # inside the built package


class BuildPyWithConfigs(build_py):
    def run(self):
        super().run()
        if self.editable_mode:
            return
        target = Path(self.build_lib) / SHIPPED
        if target.is_symlink():
            target.unlink()
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(CONFIGS, target, ignore=shutil.ignore_patterns('__pycache__', '*.py[co]'))


setup(cmdclass={'build_py': BuildPyWithConfigs})
