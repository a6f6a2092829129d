"""tools/install.sh --download / --offline: an air-gapped node installs from a folder alone."""

import os
import re
import shutil
import socket
import subprocess
import sys
from importlib.metadata import distribution
from pathlib import Path

import pytest
import torch

from tests.utils import ROOT

INSTALL = str(ROOT / 'tools' / 'install.sh')
BASE_PYTHON = getattr(sys, '_base_executable', sys.executable)
# The network refused: pip gets no index, anything else a proxy nobody listens on, and where the
# machine allows it the command runs in an empty network namespace (no_network_prefix).
NO_NETWORK = dict(
    PIP_NO_INDEX='1',
    http_proxy='http://127.0.0.1:9',
    https_proxy='http://127.0.0.1:9',
    HTTP_PROXY='http://127.0.0.1:9',
    HTTPS_PROXY='http://127.0.0.1:9',
)


def no_network_prefix() -> list:
    for prefix in (['unshare', '-n'], ['unshare', '-rn']):
        if (
            shutil.which('unshare')
            and subprocess.run([*prefix, 'true'], capture_output=True).returncode == 0
        ):
            return prefix
    return []


def install(*args, env=None, timeout=120, prefix=()):
    full_env = dict(os.environ, VITSPEC_PYTHON=BASE_PYTHON, **(env or {}))
    cmd = [*prefix, INSTALL, *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=timeout)


def test_offline_needs_a_downloaded_folder(tmp_path):
    proc = install('--offline', tmp_path, env=dict(VITSPEC_VENV=str(tmp_path / 'venv')))
    assert proc.returncode == 1
    assert 'has no vitspec-offline.txt' in proc.stderr and f'--download {tmp_path}' in proc.stderr
    assert not (tmp_path / 'venv').exists()


def test_target_options_go_with_download(tmp_path):
    proc = install('--no-torch', env=dict(VITSPEC_VENV=str(tmp_path / 'venv')))
    assert proc.returncode == 1 and 'go with --download DIR' in proc.stderr


def test_offline_refuses_wheels_for_another_python(tmp_path):
    (tmp_path / 'wheels').mkdir()
    (tmp_path / 'wheels' / 'vitspec-offline.txt').write_text('python_version=3.99\n')
    proc = install('--offline', tmp_path / 'wheels', env=dict(VITSPEC_VENV=str(tmp_path / 'v')))
    assert proc.returncode == 1
    assert 'holds wheels for Python 3.99' in proc.stderr and '--python-version' in proc.stderr


def torch_site(folder: Path) -> Path:
    """A folder of links to torch, torchvision and what they require, as a node's system
    site-packages that holds torch: the project venv's torch, without installing it again."""
    folder.mkdir()
    todo, seen = ['torch', 'torchvision'], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        try:
            dist = distribution(name)
        except Exception:  # a requirement of another platform, or of an extra not installed
            continue
        seen.add(name)
        # extras too: pip checks e.g. torch's cuda-toolkit[cudart] against what is installed
        todo += [re.match(r'[\w.-]+', r).group() for r in dist.requires or []]
        for top in {Path(str(f)).parts[0] for f in dist.files if not str(f).startswith('..')}:
            link = folder / top
            if not link.exists():
                link.symlink_to(Path(dist.locate_file(top)))
    return folder


COMPILERS = ('cc', 'c++', 'gcc', 'g++', 'clang', 'clang++', 'nvcc', 'x86_64-linux-gnu-gcc')


def without_compilers(folder: Path) -> dict:
    """PATH with every C / C++ / CUDA compiler replaced by one that fails: an install that
    compiles anything fails."""
    folder.mkdir()
    for name in COMPILERS:
        (folder / name).write_text(f'#!/bin/sh\necho "{name}: no compiler here" >&2\nexit 127\n')
        (folder / name).chmod(0o755)
    return dict(
        PATH=f'{folder}:{os.environ["PATH"]}', CC=str(folder / 'cc'), CXX=str(folder / 'c++')
    )


def pypi_reachable():
    try:
        socket.create_connection(('pypi.org', 443), timeout=5).close()
        return True
    except OSError:
        return False


@pytest.mark.slow
def test_offline_install_from_a_downloaded_folder_without_network(tmp_path):
    """--download --no-torch fills a folder (network); --offline installs a venv that sees the
    node's torch from it with the network refused and no compiler on PATH: mmcv is built from
    the folder's source without compiled ops, into an empty wheel cache."""
    torch_version = torch.__version__.split('+')[0]
    if not pypi_reachable():
        pytest.skip('filling the folder (--download) needs PyPI')

    wheels = tmp_path / 'wheels'
    proc = install('--download', wheels, '--no-torch', timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    manifest = (wheels / 'vitspec-offline.txt').read_text()
    assert f'python_version={sys.version_info[0]}.{sys.version_info[1]}' in manifest
    assert 'torch=none' in manifest and 'cuda_toolkit=none' in manifest
    assert (wheels / 'mmcv-2.1.0.tar.gz').is_file()
    assert not list(wheels.glob('torch-*')) and not list(wheels.glob('nvidia_*'))

    node = tmp_path / 'node'
    subprocess.run([BASE_PYTHON, '-m', 'venv', str(node)], check=True)
    site = next(node.glob('lib/python3*/site-packages'))
    (site / 'node_torch.pth').write_text(f'{torch_site(tmp_path / "node-site")}\n')
    offline_env = dict(
        VITSPEC_VENV=str(node),
        XDG_CACHE_HOME=str(tmp_path / 'cache'),
        **NO_NETWORK,
        **without_compilers(tmp_path / 'no-compilers'),
    )
    proc = install('--offline', wheels, env=offline_env, timeout=600, prefix=no_network_prefix())
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert f'keeping torch {torch_version}' in proc.stdout
    assert f'ok: torch {torch.__version__}, mmcv 2.1.0 (torchvision ops)' in proc.stdout
    assert list((tmp_path / 'cache' / 'vitspec' / 'wheels').glob('mmcv-2.1.0-torchvision-*/*.whl'))

    code = 'import mmcv, mmseg, timm; print(mmcv.__file__, mmseg.__file__, timm.__file__)'
    where = subprocess.run(
        [node / 'bin' / 'python', '-c', code],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert all(path.startswith(str(site)) for path in where), where


def test_download_into_a_path_under_a_file_stops_at_once(tmp_path):
    (tmp_path / 'file').write_text('')
    proc = install('--download', tmp_path / 'file' / 'wheels')
    assert proc.returncode == 1
    assert f'cannot create the folder {tmp_path / "file" / "wheels"}' in proc.stderr
    assert 'gathering' not in proc.stdout  # it did not go on


@pytest.mark.slow
def test_download_with_an_unknown_cuda_version_lists_the_ones_there_are(tmp_path):
    if not pypi_reachable():
        pytest.skip('the registry lists the nvcc versions')
    proc = install('--download', tmp_path / 'wheels', '--mmcv-ops', '--cuda', '99.9', timeout=300)
    assert proc.returncode == 1
    assert '--cuda 99.9: the registry has no nvcc packages of that CUDA version' in proc.stderr
    assert re.search(r'it has: (\d+\.\d+ )*13\.0 ', proc.stderr), proc.stderr
    assert not list((tmp_path / 'wheels').glob('*.whl'))
