"""tools/offline_wheels.py: install.sh --download's target and stubs, the torch --offline keeps."""

import json
import os
import re
import subprocess
import sys

import pytest

from tests.utils import ROOT
from tools import offline_wheels as ow


def install_sh_value(name):
    text = (ROOT / 'tools' / 'install.sh').read_text()
    return re.search(rf'^{name}=(\S+)$', text, flags=re.MULTILINE).group(1)


def test_a_manylinux_target_takes_every_older_glibc():
    tags = ow.platform_tags('manylinux_2_28_x86_64')
    assert tags[0] == 'manylinux_2_28_x86_64' and tags[-1] == 'manylinux1_x86_64'
    assert {'manylinux_2_17_x86_64', 'manylinux2014_x86_64', 'manylinux_2_5_x86_64'} <= set(tags)
    assert 'manylinux_2_29_x86_64' not in tags and 'linux_x86_64' not in tags
    assert ow.platform_tags('manylinux_2_28_x86_64', native=True)[-1] == 'linux_x86_64'


def test_legacy_and_other_platform_tags():
    legacy = ow.platform_tags('manylinux2014_aarch64')
    assert legacy[0] == 'manylinux_2_17_aarch64' and 'manylinux2010_aarch64' in legacy
    assert 'manylinux_2_18_aarch64' not in legacy
    assert ow.platform_tags('macosx_11_0_arm64') == ['macosx_11_0_arm64']


def test_native_platform_is_the_glibc_of_this_machine():
    assert ow.native_platform(('glibc', '2.36'), 'x86_64') == 'manylinux_2_36_x86_64'
    with pytest.raises(ow.TargetError, match='not a glibc Linux'):
        ow.native_platform(('', ''), 'x86_64')


def test_target_is_native_only_for_this_python_and_platform():
    here = dict(this_python='3.11', this_platform='manylinux_2_36_x86_64')
    assert ow.target(**here)['TARGET_NATIVE'] == 1
    other = ow.target('3.12', 'manylinux_2_28_x86_64', **here)
    assert other['TARGET_NATIVE'] == 0
    args = other['TARGET_ARGS']
    assert args[:4] == ['--python-version', '3.12', '--implementation', 'cp']
    assert args.count('--platform') == len(ow.platform_tags('manylinux_2_28_x86_64'))
    with pytest.raises(ow.TargetError, match='3.12'):
        ow.target('3.1x', **here)


def test_target_assignments_evaluate_in_bash():
    target = f'{sys.executable} {ROOT}/tools/offline_wheels.py target'
    script = (
        f'eval "$({target} --python-version 3.12 --platform manylinux_2_28_x86_64)"; '
        'echo "$TARGET_NATIVE ${#TARGET_ARGS[@]} ${TARGET_ARGS[5]}"'
    )
    out = subprocess.run(['bash', '-c', script], capture_output=True, text=True, check=True).stdout
    native, count, first_platform = out.split()
    assert native == '0' and first_platform == 'manylinux_2_28_x86_64'
    assert int(count) == 4 + 2 * len(ow.platform_tags('manylinux_2_28_x86_64'))


def test_accepted_torch_versions_include_the_pin():
    assert ow.torch_accepted(install_sh_value('TORCH_VERSION'))
    assert ow.torch_accepted('2.11.0+cu130') and ow.torch_accepted('2.14.1')
    assert not ow.torch_accepted('2.10.2') and not ow.torch_accepted('2.15.0')
    assert not ow.torch_accepted('parrots')


def test_a_stub_wheel_is_an_installable_package_without_requirements(tmp_path):
    wheel = ow.stub_wheel(tmp_path, 'torch', '2.14.1+node')
    assert wheel.name == 'torch-2.14.1+node-py3-none-any.whl'
    proc = subprocess.run(
        [
            sys.executable,
            '-m',
            'pip',
            'install',
            '--no-index',
            '--find-links',
            str(tmp_path),
            '--target',
            str(tmp_path / 'site'),
            '--report',
            '-',
            '--quiet',
            'torch==2.14.1+node',
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, PIP_CONFIG_FILE=os.devnull),
    )
    assert proc.returncode == 0, proc.stderr
    [item] = json.loads(proc.stdout)['install']
    assert item['metadata']['name'] == 'torch' and item['metadata']['version'] == '2.14.1+node'
    assert not item['metadata'].get('requires_dist')
    assert (tmp_path / 'site' / 'torch-2.14.1+node.dist-info' / 'METADATA').is_file()
