"""A non-editable install (pip install ., what a wheel holds) carries its configs: from a folder
outside the checkout, a ``vitspec::`` name loads and builds a model with nothing read from the
checkout. Offline: the build uses the project's setuptools, the run the project's packages."""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.utils import ROOT

DEMO = 'demo/fcn_specvit-tiny-p8-plain_2xb4-500it_demo-ade20k-128x128.py'
FILES = ['setup.py', 'pyproject.toml', 'MANIFEST.in', 'README.md', 'LICENSE']
FOLDERS = ['vitspec', 'configs']
RUN = """
import sys
from pathlib import Path

import torch
from mmengine.registry import init_default_scope

import vitspec
from vitspec.config.load import load_config
from vitspec.config.location import SHIPPED, config_dir

site, checkout = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
assert Path(vitspec.__file__).resolve().is_relative_to(site), vitspec.__file__
assert config_dir() == SHIPPED and not SHIPPED.is_symlink(), config_dir()
cfg = load_config('vitspec::{demo}')
assert Path(cfg.filename).is_relative_to(site), cfg.filename
init_default_scope(cfg.default_scope)
from mmseg.registry import MODELS

model = MODELS.build(cfg.model).eval()
with torch.no_grad():
    out = model(torch.zeros(1, 3, 64, 64), mode='tensor')
print('shipped', SHIPPED)

from vitspec.ledger.rows import load_ledger  # the ledgers ship, and their configs resolve

assert load_ledger()['rows']
print('out', tuple(out.shape))
"""


def config_files(root: Path) -> list:
    return sorted(
        p.relative_to(root) for p in root.rglob('*') if p.is_file() and '__pycache__' not in p.parts
    )


def test_installed_package_runs_a_vitspec_config_from_another_folder(tmp_path):
    src, site, elsewhere = tmp_path / 'src', tmp_path / 'site', tmp_path / 'elsewhere'
    src.mkdir()  # a copy, so no build/ left in the checkout leaks into the wheel
    for name in FILES:
        shutil.copy2(ROOT / name, src / name)
    for name in FOLDERS:
        ignore = shutil.ignore_patterns('__pycache__')
        shutil.copytree(ROOT / name, src / name, symlinks=True, ignore=ignore)
    pip = [sys.executable, '-m', 'pip', 'install', '-q', '--no-deps', '--no-index']
    subprocess.run([*pip, '--no-build-isolation', '--target', site, src], check=True, timeout=300)
    shutil.rmtree(src)  # nothing may read the sources either
    elsewhere.mkdir()

    env = dict(os.environ, PYTHONPATH=str(site))  # ahead of the editable checkout on sys.path
    proc = subprocess.run(
        [sys.executable, '-c', textwrap.dedent(RUN.format(demo=DEMO)), site, ROOT],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = dict(line.split(' ', 1) for line in proc.stdout.splitlines() if ' ' in line)
    assert config_files(Path(lines['shipped'])) == config_files(ROOT / 'configs')
    assert lines['out'].startswith('(1, ')
