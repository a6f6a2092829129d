"""tools/mmcv_wheel.py: which mmcv wheel tools/install.sh caches and installs (CPU or CUDA ops)."""

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import torch

from tests.utils import ROOT
from tools import mmcv_wheel as mw
from vitspec.mmcv_ops import kernels as kernels_package
from vitspec.mmcv_ops.installed import library_has_cuda_kernels

EXT = 'mmcv/_ext.cpython-311-x86_64-linux-gnu.so'
KERNELS = Path(kernels_package.__file__).parent


def install_sh_value(name):
    text = (ROOT / 'tools' / 'install.sh').read_text()
    return re.search(rf'^{name}=(\S+)$', text, flags=re.MULTILINE).group(1)


def fake_wheel(path, ext_bytes):
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, 'w') as archive:
        archive.writestr('mmcv/__init__.py', '')
        archive.writestr(EXT, ext_bytes)
    return path


def run_cli(*args, env=None):
    return subprocess.run(
        [sys.executable, str(ROOT / 'tools' / 'mmcv_wheel.py'), *map(str, args)],
        capture_output=True,
        text=True,
        env=dict(os.environ, **(env or {})),
        timeout=120,
    )


def test_cpu_cache_key_keeps_the_form_caches_already_hold():
    assert mw.cache_key('2.1.0', '2.14.1', 'cp311') == 'mmcv-2.1.0-torch2.14.1-cp311'


def test_install_plan_on_a_cpu_machine_is_the_old_wheel_folder(tmp_path):
    mmcv, torch_version = install_sh_value('MMCV_VERSION'), install_sh_value('TORCH_VERSION')
    proc = run_cli(
        'plan',
        '--cache',
        tmp_path,
        '--mmcv',
        mmcv,
        '--torch',
        torch_version,
        env={'VITSPEC_CUDA': '0'},
    )
    assert proc.returncode == 0, proc.stderr
    pytag = f'cp{sys.version_info[0]}{sys.version_info[1]}'
    # the folder install.sh used before CUDA ops existed: CPU caches stay valid
    old = tmp_path / f'mmcv-{mmcv}-torch{torch_version}-{pytag}'
    assert proc.stdout.splitlines() == ['MMCV_VARIANT=cpu', f'WHEEL_DIR={old}']


def test_install_sh_keys_and_builds_the_wheel_from_the_kernels_package():
    """The folder install.sh hashes for the cache key and copies into the wheel as mmcv._ext is
    the package vitspec.mmcv_ops.kernels."""
    folder = install_sh_value('MMCV_KERNELS').strip('"').replace('$ROOT', str(ROOT))
    assert Path(folder) == KERNELS and (KERNELS / '__init__.py').is_file()
    text = (ROOT / 'tools' / 'install.sh').read_text()
    assert 'variant=(--kernels "$MMCV_KERNELS")' in text
    assert 'cp -r "$MMCV_KERNELS" "$src/mmcv/_ext"' in text


def test_plan_without_compiled_ops_is_keyed_by_the_kernels(tmp_path):
    """install.sh's default: one pure-Python wheel for every torch and Python, rebuilt when the
    kernels change."""
    kernels = tmp_path / 'kernels'
    shutil.copytree(KERNELS, kernels, ignore=shutil.ignore_patterns('__pycache__'))
    args = ('plan', '--cache', tmp_path / 'cache', '--mmcv', '2.1.0', '--torch', '2.14.1')
    proc = run_cli(*args, '--kernels', kernels, env={'VITSPEC_CUDA': '1'})
    assert proc.returncode == 0, proc.stderr
    first = dict(line.split('=', 1) for line in proc.stdout.splitlines())
    assert first['MMCV_VARIANT'] == 'torchvision' and set(first) == {'MMCV_VARIANT', 'WHEEL_DIR'}
    assert Path(first['WHEEL_DIR']).name.startswith('mmcv-2.1.0-torchvision-')
    assert run_cli(*args[:-1], '2.11.0', '--kernels', kernels).stdout == proc.stdout
    (kernels / 'nms.py').write_text((kernels / 'nms.py').read_text() + '\n# changed\n')
    assert run_cli(*args, '--kernels', kernels).stdout != proc.stdout


def test_only_a_pure_python_wheel_with_the_kernels_is_the_torchvision_variant(tmp_path):
    good = tmp_path / 'good' / 'mmcv-2.1.0-py2.py3-none-any.whl'
    good.parent.mkdir()
    with zipfile.ZipFile(good, 'w') as archive:
        archive.writestr('mmcv/__init__.py', '')
        archive.writestr('mmcv/_ext/__init__.py', '')
    mw.check_wheel(good, 'torchvision')
    compiled = fake_wheel(tmp_path / 'compiled' / 'mmcv-2.1.0-cp311-cp311-linux_x86_64.whl', b'')
    lite = tmp_path / 'mmcv_lite-2.1.0-py3-none-any.whl'
    with zipfile.ZipFile(lite, 'w') as archive:
        archive.writestr('mmcv/__init__.py', '')
    for wrong in (compiled, lite):
        with pytest.raises(mw.WheelChoiceError, match="vitspec's kernels as mmcv._ext"):
            mw.check_wheel(wrong, 'torchvision')


def test_cuda_cache_key_names_cuda_version_and_architectures():
    key = mw.cache_key('2.1.0', '2.14.1', 'cp311', '13.0', '8.0;9.0;10.0+PTX')
    assert key == 'mmcv-2.1.0-torch2.14.1-cp311-cuda13.0-arch8.0_9.0_10.0+PTX'
    assert mw.cache_key('2.1.0', '2.14.1', 'cp311', '13.0', '8.0 9.0 10.0+PTX') == key
    assert mw.cache_key('2.1.0', '2.14.1', 'cp311', '13.0', '9.0') != key
    assert mw.cache_key('2.1.0', '2.14.1', 'cp311', '12.8', '8.0;9.0;10.0+PTX') != key


@pytest.mark.parametrize(
    'env, gpu, wanted',
    [
        (None, False, False),
        (None, True, True),
        ('', True, True),
        ('1', False, True),
        ('0', True, False),
        ('1', True, True),
    ],
)
def test_cuda_is_wanted_with_a_gpu_or_when_asked_for(env, gpu, wanted):
    assert mw.cuda_wanted(env, gpu) is wanted


def test_cuda_wanted_refuses_an_unknown_setting():
    with pytest.raises(ValueError, match='VITSPEC_CUDA'):
        mw.cuda_wanted('yes', False)


def test_arch_list_from_visible_gpus_override_and_default():
    assert mw.arch_list([(9, 0), (8, 0), (9, 0)]) == '8.0;9.0'
    assert mw.arch_list([(12, 0)]) == '12.0'
    assert mw.arch_list([(9, 0)], override=' 8.6 9.0+PTX ') == '8.6;9.0+PTX'
    assert mw.arch_list([]) == mw.DEFAULT_ARCH_LIST == '8.0;9.0;10.0+PTX'


@pytest.mark.parametrize(
    'capability, covered',
    [
        ((8, 0), True),
        ((8, 6), True),
        ((8, 9), True),
        ((9, 0), True),
        ((10, 0), True),
        ((10, 3), True),
        ((12, 0), True),
        ((7, 5), False),
    ],
)
def test_default_arch_list_covers_current_data_centre_gpus(capability, covered):
    # A100, A10, L40S, H100, B200, B300, RTX PRO 6000 (by PTX); not T4 (7.5)
    assert mw.arch_covers(mw.DEFAULT_ARCH_LIST, capability) is covered


def test_arch_coverage_needs_the_same_major_without_ptx():
    assert not mw.arch_covers('8.0;9.0', (10, 0))
    assert not mw.arch_covers('8.6', (8, 0))
    assert mw.arch_covers('8.0+PTX', (9, 0))


def test_plan_with_cuda_asked_for_on_a_gpu_less_login_node(tmp_path, monkeypatch):
    monkeypatch.setattr(mw, 'visible_capabilities', lambda: [])
    monkeypatch.setattr(mw.torch.version, 'cuda', '13.0')
    values = mw.plan(tmp_path, '2.1.0', '2.14.1', {'VITSPEC_CUDA': '1'})
    assert values['MMCV_VARIANT'] == 'cuda'
    assert values['TORCH_CUDA_ARCH_LIST'] == mw.DEFAULT_ARCH_LIST
    assert values['WHEEL_DIR'].name.endswith('-cuda13.0-arch8.0_9.0_10.0+PTX')
    assert 'nvidia-cuda-nvcc==13.0.*' in values['NVCC_PACKAGES'].split()


def test_plan_on_a_gpu_node_builds_for_its_gpus(tmp_path, monkeypatch):
    monkeypatch.setattr(mw, 'visible_capabilities', lambda: [(9, 0), (9, 0)])
    monkeypatch.setattr(mw.torch.version, 'cuda', '13.0')
    values = mw.plan(tmp_path, '2.1.0', '2.14.1', {})
    assert values['MMCV_VARIANT'] == 'cuda' and values['TORCH_CUDA_ARCH_LIST'] == '9.0'
    assert values['WHEEL_DIR'].name.endswith('-cuda13.0-arch9.0')


def test_plan_refuses_cuda_with_a_cpu_only_torch(tmp_path, monkeypatch):
    monkeypatch.setattr(mw, 'visible_capabilities', lambda: [])
    monkeypatch.setattr(mw.torch.version, 'cuda', None)
    with pytest.raises(mw.WheelChoiceError, match='CPU-only build'):
        mw.plan(tmp_path, '2.1.0', '2.14.1', {'VITSPEC_CUDA': '1'})


def test_gpu_node_reuses_a_login_node_wheel_that_covers_its_gpus(tmp_path, monkeypatch):
    login_key = mw.cache_key('2.1.0', '2.14.1', 'cp311', '13.0', mw.DEFAULT_ARCH_LIST)
    fake_wheel(tmp_path / login_key / 'mmcv-2.1.0-cp311-cp311-linux_x86_64.whl', b'.nv_fatbin')
    h100 = mw.cache_key('2.1.0', '2.14.1', 'cp311', '13.0', '9.0')
    assert mw.choose_wheel_dir(tmp_path, h100, [(9, 0)], exact=False) == tmp_path / login_key
    # an arch list that was asked for is built as asked
    assert mw.choose_wheel_dir(tmp_path, h100, [(9, 0)], exact=True) == tmp_path / h100
    t4 = mw.cache_key('2.1.0', '2.14.1', 'cp311', '13.0', '7.5')
    assert mw.choose_wheel_dir(tmp_path, t4, [(7, 5)], exact=False) == tmp_path / t4
    other_cuda = mw.cache_key('2.1.0', '2.14.1', 'cp311', '13.1', '9.0')
    assert mw.choose_wheel_dir(tmp_path, other_cuda, [(9, 0)], exact=False) == (
        tmp_path / other_cuda
    )


def test_cpu_only_wheel_is_refused_where_cuda_is_expected(tmp_path):
    cpu = fake_wheel(tmp_path / 'cpu' / 'mmcv-2.1.0-cp311-cp311-linux_x86_64.whl', b'\x7fELF')
    cuda = fake_wheel(
        tmp_path / 'cuda' / 'mmcv-2.1.0-cp311-cp311-linux_x86_64.whl', b'\x7fELF.nv_fatbin'
    )
    with pytest.raises(mw.WheelChoiceError, match='CPU-only ops'):
        mw.check_wheel(cpu, 'cuda')
    mw.check_wheel(cuda, 'cuda')
    mw.check_wheel(cpu, 'cpu')
    proc = run_cli('check', cpu, '--variant', 'cuda')
    assert proc.returncode == 2 and 'VITSPEC_CUDA=1' in proc.stderr  # install.sh stops


def test_a_wheel_without_compiled_ops_is_refused(tmp_path):
    lite = tmp_path / 'mmcv_lite-2.1.0-py3-none-any.whl'
    with zipfile.ZipFile(lite, 'w') as archive:
        archive.writestr('mmcv/__init__.py', '')
    with pytest.raises(mw.WheelChoiceError, match='no compiled mmcv ops'):
        mw.check_wheel(lite, 'cuda')


def test_this_machines_cached_cpu_wheel_has_no_cuda_kernels():
    cache = Path(os.environ.get('XDG_CACHE_HOME', Path.home() / '.cache')) / 'vitspec' / 'wheels'
    pytag = f'cp{sys.version_info[0]}{sys.version_info[1]}'
    key = mw.cache_key(install_sh_value('MMCV_VERSION'), install_sh_value('TORCH_VERSION'), pytag)
    wheel = mw.cached_wheel(cache / key)
    if wheel is None:
        pytest.skip(f'no cached CPU wheel in {cache / key}')
    assert not mw.wheel_has_cuda_kernels(wheel)
    with pytest.raises(mw.WheelChoiceError):
        mw.check_wheel(wheel, 'cuda')


def test_registry_packages_match_torchs_cuda():
    assert mw.nvcc_packages('13.0') == [
        'nvidia-cuda-nvcc==13.0.*',
        'nvidia-cuda-crt==13.0.*',
        'nvidia-nvvm==13.0.*',
        'nvidia-cuda-cccl==13.0.*',
        'nvidia-cuda-runtime==13.0.*',
    ]
    assert mw.pip_cuda_home(Path('/venv/site'), '13.0') == Path('/venv/site/nvidia/cu13')
    with pytest.raises(mw.WheelChoiceError, match='CUDA_HOME'):
        mw.nvcc_packages('12.8')


def test_nvcc_release_is_read_from_its_version_text():
    text = 'Cuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0.r13.0/compiler'
    assert mw.nvcc_release(text) == '13.0'
    assert mw.nvcc_release('command not found') is None


def test_cuda_home_search_order_and_major_version(tmp_path):
    wrapper_bin = tmp_path / 'opt' / 'cuda-12.8' / 'bin'
    wrapper_bin.mkdir(parents=True)
    (wrapper_bin / 'nvcc').write_text('')
    env = {'CUDA_HOME': '/custom/cuda'}
    candidates = mw.cuda_home_candidates(env, str(wrapper_bin / 'nvcc'), '13.0', '/venv/site')
    assert candidates == [
        Path('/custom/cuda'),
        tmp_path / 'opt' / 'cuda-12.8',
        Path('/usr/local/cuda-13.0'),
        Path('/usr/local/cuda'),
        Path('/venv/site/nvidia/cu13'),
    ]
    releases = {
        Path('/custom/cuda'): None,  # not a complete toolkit
        tmp_path / 'opt' / 'cuda-12.8': '12.8',  # another major: its extensions would not load
        Path('/usr/local/cuda-13.0'): None,
        Path('/usr/local/cuda'): '13.1',
        Path('/venv/site/nvidia/cu13'): '13.0',
    }
    assert mw.find_cuda_home(candidates, '13.0', releases.get) == Path('/usr/local/cuda')
    del releases[Path('/usr/local/cuda')]
    assert mw.find_cuda_home(candidates, '13.0', releases.get) == Path('/venv/site/nvidia/cu13')
    assert mw.find_cuda_home(candidates[:2], '13.0', releases.get) is None


def test_link_name_for_the_registrys_versioned_cudart(tmp_path):
    home = tmp_path / 'cu13'
    (home / 'lib').mkdir(parents=True)
    (home / 'lib' / 'libcudart.so.13').write_bytes(b'')
    made = mw.link_names(home, tmp_path / 'links')
    assert made == [tmp_path / 'links' / 'libcudart.so']
    assert made[0].resolve() == (home / 'lib' / 'libcudart.so.13').resolve()
    (home / 'lib64').mkdir()
    (home / 'lib64' / 'libcudart.so').write_bytes(b'')
    assert mw.link_names(home, tmp_path / 'links2') == []


TINY_CU = r"""
#include <ATen/cuda/CUDAContext.h>
#include <torch/library.h>

__global__ void add_one_kernel(float* x, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

at::Tensor add_one(const at::Tensor& x) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == at::kFloat, "a float CUDA tensor");
  at::Tensor y = x.contiguous().clone();
  const int64_t n = y.numel();
  add_one_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      y.data_ptr<float>(), n);
  return y;
}

TORCH_LIBRARY(vitspec_nvcc_probe, m) { m.def("add_one", add_one); }
"""


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_registry_nvcc_builds_a_cuda_extension_against_torch(tmp_path):
    """What install.sh does on a machine without a toolkit: the registry's nvcc packages, the
    link name for cudart, torch's extension builder. Builds only (no GPU to run it)."""
    if torch.version.cuda is None:
        pytest.skip('torch is a CPU-only build')
    packages = mw.nvcc_packages(torch.version.cuda)
    target = tmp_path / 'site'
    pip = subprocess.run(
        [
            sys.executable,
            '-m',
            'pip',
            'install',
            '--disable-pip-version-check',
            '--no-deps',
            '--target',
            str(target),
            *packages,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if pip.returncode != 0:
        pytest.skip(f'the registry is not reachable: {pip.stderr.strip().splitlines()[-1:]}')
    home = mw.pip_cuda_home(target, torch.version.cuda)
    assert mw.toolkit_release(home) == torch.version.cuda
    codes = subprocess.run(
        [str(home / 'bin' / 'nvcc'), '--list-gpu-code'], capture_output=True, text=True
    ).stdout.split()
    for entry in mw.split_arch_list(mw.DEFAULT_ARCH_LIST):
        assert 'sm_' + entry.split('+')[0].replace('.', '') in codes, codes
    mw.link_names(home, tmp_path / 'links')
    source = tmp_path / 'probe.cu'
    source.write_text(TINY_CU)
    # the headers of torch's own CUDA dependencies (cublas, cusparse, ...), which the venv holds
    # next to the registry's nvcc when install.sh installs it there
    venv_cuda = mw.pip_cuda_home(Path(torch.__file__).parents[1], torch.version.cuda) / 'include'
    script = (
        'import sys, torch, torch.utils.cpp_extension as ext\n'
        "ext.load('vitspec_nvcc_probe', [sys.argv[1]], build_directory=sys.argv[2],\n"
        '         extra_include_paths=[sys.argv[3]], is_python_module=False)\n'
        'print(torch.ops.vitspec_nvcc_probe.add_one)\n'
    )
    build = tmp_path / 'build'
    build.mkdir()
    env = dict(
        os.environ,
        CUDA_HOME=str(home),
        TORCH_CUDA_ARCH_LIST='9.0',
        LIBRARY_PATH=str(tmp_path / 'links'),
        MAX_JOBS='1',
    )
    proc = subprocess.run(
        [sys.executable, '-c', script, str(source), str(build), str(venv_cuda)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert 'add_one' in proc.stdout
    # the marker check_wheel and the run-time check look for is what nvcc writes
    assert b'.nv_fatbin' in (build / 'vitspec_nvcc_probe.so').read_bytes()
    assert library_has_cuda_kernels(build / 'vitspec_nvcc_probe.so')
