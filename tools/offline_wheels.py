"""The target of tools/install.sh --download, and whether --offline may keep a node's torch.

Standard library only: the download side runs on a connected machine that may have no torch.

    python tools/offline_wheels.py target [--python-version 3.12] [--platform manylinux_2_28_x86_64]
        shell assignments: TARGET_PYTHON, TARGET_PLATFORM, TARGET_NATIVE (1 when the target is
        this machine, whose pip can build a wheel of a source-only package), TARGET_ARGS (a bash
        array: pip download's options for that target)
    python tools/offline_wheels.py stub-wheel DIR torch 2.14.1+node
        an empty wheel that stands for a package the node already has (install.sh --no-torch)
    python tools/offline_wheels.py reusable-torch
        the version of this python's torch when --offline may keep it, else exit 1 saying why
"""

import argparse
import platform
import re
import shlex
import sys
import zipfile
from pathlib import Path

# torch minor versions (inclusive) that mmcv 2.1.0, built from source with C++20, and vitspec
# are known to work with: 2.14 is install.sh's pin, 2.11 ran on the device machines (H100, H200).
ACCEPTED_TORCH = ((2, 11), (2, 14))
# manylinux tags named before PEP 600, and the glibc each stands for
LEGACY_MANYLINUX = {'manylinux2014': (2, 17), 'manylinux2010': (2, 12), 'manylinux1': (2, 5)}


class TargetError(ValueError):
    """A --download target or a torch that tools/install.sh cannot use."""


def native_platform(libc=None, machine=None) -> str:
    """This machine's manylinux tag, e.g. manylinux_2_36_x86_64 on glibc 2.36."""
    name, version = libc or platform.libc_ver()
    machine = machine or platform.machine()
    found = re.fullmatch(r'(\d+)\.(\d+)', version or '')
    if name != 'glibc' or not found:
        raise TargetError(f'this machine is not a glibc Linux ({name} {version}): name --platform')
    return f'manylinux_{found.group(1)}_{found.group(2)}_{machine}'


def manylinux_glibc(tag: str):
    """(glibc version, architecture) of a manylinux tag, None for other platforms."""
    found = re.fullmatch(r'manylinux_(\d+)_(\d+)_(\w+)', tag)
    if found:
        return (int(found.group(1)), int(found.group(2))), found.group(3)
    legacy, _, arch = tag.partition('_')
    if legacy in LEGACY_MANYLINUX and arch:
        return LEGACY_MANYLINUX[legacy], arch
    return None


def platform_tags(tag: str, native=False) -> list:
    """The wheel platforms a machine of `tag` installs: for manylinux every older glibc too (pip
    does not widen a manylinux_2_x --platform itself), and on this machine also the linux_ tag
    of wheels built here from source."""
    parsed = manylinux_glibc(tag)
    if parsed is None:
        return [tag]
    (major, newest), arch = parsed
    tags = [f'manylinux_{major}_{minor}_{arch}' for minor in range(newest, 4, -1)]
    tags += [f'{name}_{arch}' for name, glibc in LEGACY_MANYLINUX.items() if glibc <= parsed[0]]
    if native:
        tags.append(f'linux_{arch}')
    return tags


def target(python_version=None, platform_tag=None, this_python=None, this_platform=None) -> dict:
    """pip download's view of the target, by default this machine."""
    this_python = this_python or '{}.{}'.format(*sys.version_info[:2])
    python_version = python_version or this_python
    if not re.fullmatch(r'3\.\d+', python_version):
        raise TargetError(f'--python-version must look like 3.12, got {python_version!r}')
    this_platform = this_platform or native_platform()
    platform_tag = platform_tag or this_platform
    native = python_version == this_python and platform_tag == this_platform
    args = ['--python-version', python_version, '--implementation', 'cp']
    for tag in platform_tags(platform_tag, native):
        args += ['--platform', tag]
    return dict(
        TARGET_PYTHON=python_version,
        TARGET_PLATFORM=platform_tag,
        TARGET_NATIVE=int(native),
        TARGET_ARGS=args,
    )


def stub_wheel(folder: Path, name: str, version: str) -> Path:
    """An empty wheel of `name` without requirements. install.sh --download --no-torch gives pip
    one for torch and torchvision, so that it neither downloads them nor their CUDA libraries
    (GBs) while gathering what timm, which requires torch, needs."""
    info = f'{name}-{version}.dist-info'
    files = {
        f'{info}/METADATA': f'Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n',
        f'{info}/WHEEL': 'Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
    }
    files[f'{info}/RECORD'] = ''.join(f'{path},,\n' for path in [*files, f'{info}/RECORD'])
    path = Path(folder) / f'{name}-{version}-py3-none-any.whl'
    with zipfile.ZipFile(path, 'w') as archive:
        for member, text in files.items():
            archive.writestr(member, text)
    return path


def torch_accepted(version: str) -> bool:
    """Whether --offline keeps a torch of `version` (a local part such as +cu130 is ignored)."""
    found = re.match(r'(\d+)\.(\d+)', version)
    if not found:
        return False
    minor = (int(found.group(1)), int(found.group(2)))
    return ACCEPTED_TORCH[0] <= minor <= ACCEPTED_TORCH[1]


def reusable_torch() -> str:
    """This python's torch version without its local part, when torch and torchvision import and
    torch's version is accepted."""
    try:
        import torch
        import torchvision  # noqa: F401  timm needs it; it must be the one built for this torch
    except ImportError as exc:
        raise TargetError(f'no torch and torchvision to keep ({exc})') from exc
    if not torch_accepted(torch.__version__):
        low, high = ('.'.join(map(str, v)) for v in ACCEPTED_TORCH)
        raise TargetError(f'torch {torch.__version__} is not one of {low} to {high}')
    return torch.__version__.split('+')[0]


def shell_value(value) -> str:
    if isinstance(value, list):
        return '(' + ' '.join(shlex.quote(v) for v in value) + ')'
    return shlex.quote(str(value))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    p = sub.add_parser('target')
    p.add_argument('--python-version')
    p.add_argument('--platform')
    p = sub.add_parser('stub-wheel')
    p.add_argument('folder', type=Path)
    p.add_argument('name')
    p.add_argument('version')
    sub.add_parser('reusable-torch')
    args = parser.parse_args(argv)
    try:
        if args.command == 'target':
            values = target(args.python_version, args.platform)
            print('\n'.join(f'{k}={shell_value(v)}' for k, v in values.items()))
        elif args.command == 'stub-wheel':
            print(stub_wheel(args.folder, args.name, args.version))
        else:
            print(reusable_torch())
    except TargetError as exc:
        print(f'[install] {exc}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
