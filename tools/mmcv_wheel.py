"""Which mmcv wheel tools/install.sh builds, caches and installs: without compiled ops (its ops
on vitspec's PyTorch / torchvision kernels), or with CPU-only or CUDA compiled ops.

The decisions are functions of plain values, so that tests can call them; `main` probes the
machine (nvidia-smi, torch) and prints the result for install.sh, run with the venv's python
once torch is installed. Nothing here imports vitspec, which is not installed yet at that point.

    python tools/mmcv_wheel.py plan --cache DIR --mmcv 2.1.0 --torch 2.14.1 [--kernels DIR]
        shell assignments: MMCV_VARIANT (torchvision with --kernels, the kernels' folder;
        else cpu | cuda), WHEEL_DIR, and for CUDA also MMCV_CUDA_VERSION,
        TORCH_CUDA_ARCH_LIST, NVCC_PACKAGES
    python tools/mmcv_wheel.py cuda-home         a CUDA toolkit matching torch's CUDA, or exit 1
    python tools/mmcv_wheel.py link-dir DIR      link names the linker needs from a pip toolkit
    python tools/mmcv_wheel.py check WHEEL --variant cuda   refuses a wheel without CUDA kernels
        (--variant torchvision: one with compiled ops or without the kernels)
    python tools/mmcv_wheel.py nvcc-packages 13.0   the registry's toolkit packages for a CUDA
        version, one a line (install.sh --download runs it where torch may be absent)

Environment: VITSPEC_CUDA=1 builds CUDA ops without a visible GPU (a login node building for
GPU nodes), VITSPEC_CUDA=0 forces CPU ops; TORCH_CUDA_ARCH_LIST overrides the architectures.
"""

import argparse
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

try:
    import torch
except ImportError:  # only nvcc-packages runs without torch (install.sh --download)
    torch = None

# A100 / A30 (sm_80 binaries also run on A10, L4, L40S: same major), H100 / H200 (9.0),
# B200 / B300 (10.x); PTX of 10.0 is compiled by the driver for newer GPUs (e.g. 12.0).
# nvcc 13 builds 7.5 to 12.1 and no longer 7.0 (V100).
DEFAULT_ARCH_LIST = '8.0;9.0;10.0+PTX'


class WheelChoiceError(RuntimeError):
    """The wheel at hand is not the kind this machine needs."""


def cuda_wanted(vitspec_cuda, gpu_visible: bool) -> bool:
    """VITSPEC_CUDA ('1' / '0') decides when set; otherwise a visible GPU does."""
    if vitspec_cuda in (None, ''):
        return gpu_visible
    if vitspec_cuda not in ('0', '1'):
        raise ValueError(f'VITSPEC_CUDA must be 0 or 1, got {vitspec_cuda!r}')
    return vitspec_cuda == '1'


def arch_list(capabilities=(), override=None) -> str:
    """TORCH_CUDA_ARCH_LIST: the override when given, else the visible GPUs' compute
    capabilities ((major, minor) pairs), else DEFAULT_ARCH_LIST."""
    if override and override.strip():
        return ';'.join(split_arch_list(override))
    if capabilities:
        return ';'.join(f'{major}.{minor}' for major, minor in sorted(set(capabilities)))
    return DEFAULT_ARCH_LIST


def split_arch_list(archs: str) -> list:
    """torch accepts ';' or spaces between entries."""
    return [a for a in re.split(r'[;\s]+', archs.strip()) if a]


def arch_covers(archs: str, capability) -> bool:
    """Whether a wheel built for `archs` runs on a GPU of `capability`: a cubin for X.Y runs on
    X.Z with Z >= Y; PTX for X.Y ('+PTX') is compiled by the driver for any later GPU."""
    major, minor = capability
    for entry in split_arch_list(archs):
        version, _, ptx = entry.partition('+')
        built = tuple(int(v) for v in version.split('.'))
        if built[0] == major and built[1] <= minor:
            return True
        if ptx.upper() == 'PTX' and built <= (major, minor):
            return True
    return False


def cache_key(mmcv_version, torch_version, pytag, cuda_version=None, archs=None) -> str:
    """The wheel cache folder's name. The CPU form is the one caches already hold."""
    key = f'mmcv-{mmcv_version}-torch{torch_version}-{pytag}'
    if cuda_version is None:
        return key
    return f'{key}-cuda{cuda_version}-arch{"_".join(split_arch_list(archs))}'


def kernels_key(mmcv_version, kernels_dir: Path) -> str:
    """The cache folder's name of mmcv without compiled ops: pure Python, the same for every
    torch and Python; a change to the kernels (vitspec/mmcv_ops/kernels) builds a new wheel."""
    digest = hashlib.sha256()
    for path in sorted(Path(kernels_dir).rglob('*.py')):
        digest.update(path.relative_to(kernels_dir).as_posix().encode() + b'\0')
        digest.update(path.read_bytes() + b'\0')
    return f'mmcv-{mmcv_version}-torchvision-{digest.hexdigest()[:12]}'


def cached_wheel(wheel_dir: Path):
    wheels = sorted(Path(wheel_dir).glob('mmcv-*.whl'))
    return wheels[0] if wheels else None


def choose_wheel_dir(cache: Path, key: str, capabilities=(), exact=True) -> Path:
    """The cache folder to use: `key` when it holds a wheel or `exact` (an arch list that was
    asked for); otherwise a cached CUDA wheel of the same mmcv / torch / Python / CUDA whose
    architectures cover every visible GPU (a login node's build reused on the GPU nodes);
    otherwise `key`, to be built."""
    wanted = Path(cache) / key
    if exact or cached_wheel(wanted) or '-arch' not in key:
        return wanted
    prefix = key[: key.index('-arch') + len('-arch')]
    for candidate in sorted(Path(cache).glob(prefix + '*')):
        archs = candidate.name[len(prefix) :].replace('_', ';')
        covered = all(arch_covers(archs, cap) for cap in capabilities)
        if covered and cached_wheel(candidate):
            return candidate
    return wanted


def wheel_has_cuda_kernels(wheel: Path) -> bool:
    """Whether mmcv's compiled ops in `wheel` hold CUDA device code (the ELF section nvcc
    writes kernels to); a CPU-only build has none."""
    with zipfile.ZipFile(wheel) as archive:
        ext = [n for n in archive.namelist() if re.fullmatch(r'mmcv/_ext[^/]*\.so', n)]
        if not ext:
            raise WheelChoiceError(f'{wheel} has no compiled mmcv ops (mmcv/_ext*.so)')
        return b'.nv_fatbin' in archive.read(ext[0])


def check_wheel(wheel: Path, variant: str):
    """Refuse a CPU-only wheel where CUDA is expected, and a compiled one (or one without the
    kernels) where the torchvision variant is."""
    if variant == 'torchvision':
        with zipfile.ZipFile(wheel) as archive:
            names = archive.namelist()
        if 'mmcv/_ext/__init__.py' not in names or any(n.endswith('.so') for n in names):
            raise WheelChoiceError(
                f"{wheel} is not mmcv without compiled ops with vitspec's kernels as mmcv._ext: "
                'delete it and run tools/install.sh again'
            )
        return
    if variant == 'cuda' and not wheel_has_cuda_kernels(wheel):
        raise WheelChoiceError(
            f'{wheel} has CPU-only ops, but this install needs CUDA ops: delete it and run '
            'VITSPEC_CUDA=1 tools/install.sh --mmcv-ops again where nvcc is found or can be '
            'installed'
        )


def nvcc_packages(cuda_version: str) -> list:
    """The registry's packages that make a CUDA toolkit for building extensions, matching torch's
    CUDA major.minor. From CUDA 13 they share one prefix, site-packages/nvidia/cu<major>: nvcc
    (bin/), crt (include/crt), nvvm (cicc, libdevice), cccl (include/cccl), runtime (cudart)."""
    major = int(cuda_version.split('.')[0])
    if major < 13:
        raise WheelChoiceError(
            f'torch is built with CUDA {cuda_version}: set CUDA_HOME to a CUDA {cuda_version} '
            'toolkit (the registry installs nvcc into one folder only from CUDA 13 on)'
        )
    names = ['nvidia-cuda-nvcc', 'nvidia-cuda-crt', 'nvidia-nvvm', 'nvidia-cuda-cccl']
    return [f'{name}=={cuda_version}.*' for name in names + ['nvidia-cuda-runtime']]


def pip_cuda_home(site_packages: Path, cuda_version: str) -> Path:
    return Path(site_packages) / 'nvidia' / f'cu{cuda_version.split(".")[0]}'


def nvcc_release(version_text: str):
    """'13.0' from `nvcc --version`, None when it does not say."""
    match = re.search(r'release (\d+\.\d+)', version_text)
    return match.group(1) if match else None


def toolkit_release(home: Path):
    """The CUDA release of the toolkit at `home`, None when it is not a complete one."""
    nvcc = Path(home) / 'bin' / 'nvcc'
    if not (nvcc.is_file() and (Path(home) / 'include' / 'cuda_runtime.h').is_file()):
        return None
    proc = subprocess.run([str(nvcc), '--version'], capture_output=True, text=True)
    return nvcc_release(proc.stdout) if proc.returncode == 0 else None


def cuda_home_candidates(env, nvcc_on_path, cuda_version: str, site_packages) -> list:
    """Where to look for a toolkit, in order: CUDA_HOME / CUDA_PATH, the one around `nvcc` on
    PATH, /usr/local/cuda-<version>, /usr/local/cuda, the registry's in `site_packages`."""
    found = [env.get('CUDA_HOME'), env.get('CUDA_PATH')]
    if nvcc_on_path:
        found.append(str(Path(os.path.realpath(nvcc_on_path)).parent.parent))
    found += [f'/usr/local/cuda-{cuda_version}', '/usr/local/cuda']
    found.append(str(pip_cuda_home(site_packages, cuda_version)))
    return [Path(p) for p in dict.fromkeys(p for p in found if p)]


def find_cuda_home(candidates, cuda_version: str, release=toolkit_release):
    """The first complete toolkit whose major version is torch's (extensions built with another
    major do not load)."""
    major = cuda_version.split('.')[0]
    for home in candidates:
        found = release(home)
        if found and found.split('.')[0] == major:
            return home
    return None


def link_names(cuda_home: Path, link_dir: Path) -> list:
    """Link names (libcudart.so) that the registry's toolkit lacks, made in `link_dir` for the
    linker (LIBRARY_PATH): it ships the runtime as libcudart.so.<major> only."""
    made = []
    for lib in ('lib64', 'lib'):
        versioned = sorted((Path(cuda_home) / lib).glob('libcudart.so.*'))
        if (Path(cuda_home) / lib / 'libcudart.so').exists():
            return made
        if versioned:
            Path(link_dir).mkdir(parents=True, exist_ok=True)
            link = Path(link_dir) / 'libcudart.so'
            if not link.exists():
                link.symlink_to(versioned[0])
            made.append(link)
            return made
    return made


def visible_capabilities() -> list:
    """Compute capabilities of the visible GPUs: torch's view, else nvidia-smi's."""
    if torch.cuda.is_available():
        return [torch.cuda.get_device_capability(i) for i in range(torch.cuda.device_count())]
    if not shutil.which('nvidia-smi'):
        return []
    proc = subprocess.run(
        ['nvidia-smi', '--query-gpu=compute_cap', '--format=csv,noheader'],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        return []
    caps = re.findall(r'^\s*(\d+)\.(\d+)\s*$', proc.stdout, flags=re.MULTILINE)
    return [(int(major), int(minor)) for major, minor in caps]


def plan(cache: Path, mmcv_version: str, torch_version: str, env, kernels_dir=None) -> dict:
    """The wheel to install: without compiled ops when `kernels_dir` (vitspec/mmcv_ops/kernels) is
    given, else with compiled ops for this machine."""
    if kernels_dir is not None:
        return dict(
            MMCV_VARIANT='torchvision',
            WHEEL_DIR=Path(cache) / kernels_key(mmcv_version, kernels_dir),
        )
    pytag = f'cp{sys.version_info[0]}{sys.version_info[1]}'
    capabilities = visible_capabilities()
    if not cuda_wanted(env.get('VITSPEC_CUDA'), bool(capabilities)):
        return dict(
            MMCV_VARIANT='cpu',
            WHEEL_DIR=Path(cache) / cache_key(mmcv_version, torch_version, pytag),
        )
    cuda_version = torch.version.cuda
    if cuda_version is None:
        raise WheelChoiceError(
            f'CUDA ops were asked for, but torch {torch.__version__} is a CPU-only build'
        )
    override = env.get('TORCH_CUDA_ARCH_LIST')
    archs = arch_list(capabilities, override)
    key = cache_key(mmcv_version, torch_version, pytag, cuda_version, archs)
    wheel_dir = choose_wheel_dir(cache, key, capabilities, exact=bool(override) or not capabilities)
    return dict(
        MMCV_VARIANT='cuda',
        WHEEL_DIR=wheel_dir,
        MMCV_CUDA_VERSION=cuda_version,
        TORCH_CUDA_ARCH_LIST=archs,
        NVCC_PACKAGES=' '.join(nvcc_packages(cuda_version)),
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    p = sub.add_parser('plan')
    p.add_argument('--cache', type=Path, required=True)
    p.add_argument('--mmcv', required=True)
    p.add_argument('--torch', required=True)
    p.add_argument(
        '--kernels', type=Path, help='vitspec/mmcv_ops/kernels: mmcv without compiled ops'
    )
    sub.add_parser('cuda-home')
    p = sub.add_parser('link-dir')
    p.add_argument('cuda_home', type=Path)
    p.add_argument('link_dir', type=Path)
    p = sub.add_parser('check')
    p.add_argument('wheel', type=Path)
    p.add_argument('--variant', choices=['torchvision', 'cpu', 'cuda'], required=True)
    p = sub.add_parser('nvcc-packages')
    p.add_argument('cuda_version')
    args = parser.parse_args(argv)
    try:
        if args.command == 'plan':
            values = plan(args.cache, args.mmcv, args.torch, os.environ, args.kernels)
            print('\n'.join(f'{k}={shlex.quote(str(v))}' for k, v in values.items()))
        elif args.command == 'cuda-home':
            if torch.version.cuda is None:
                raise WheelChoiceError(f'torch {torch.__version__} is a CPU-only build')
            site_packages = sysconfig.get_paths()['purelib']
            candidates = cuda_home_candidates(
                os.environ, shutil.which('nvcc'), torch.version.cuda, site_packages
            )
            home = find_cuda_home(candidates, torch.version.cuda)
            if home is None:
                return 1
            print(home)
        elif args.command == 'link-dir':
            link_names(args.cuda_home, args.link_dir)
        elif args.command == 'nvcc-packages':
            print('\n'.join(nvcc_packages(args.cuda_version)))
        else:
            check_wheel(args.wheel, args.variant)
    except (WheelChoiceError, ValueError) as exc:
        print(f'[install] ERROR: {exc}', file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
