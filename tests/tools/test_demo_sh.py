"""tools/demo.sh's options: a bad argument or DEMO value is refused before anything is set up,
and every config the script runs or names as the next step exists."""

import os
import re
import subprocess

import pytest

from tests.utils import ROOT

SCRIPT = ROOT / 'tools' / 'demo.sh'


def run_demo(*args, **env):
    return subprocess.run(
        ['bash', str(SCRIPT), *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ('args', 'env', 'message'),
    [
        (['--bogus'], {}, "unknown argument '--bogus'"),
        (['--long', 'x'], {}, "unknown argument 'x'"),
        ([], {'DEMO': 'medium'}, "DEMO must be short or long, got 'medium'"),
    ],
)
def test_a_bad_argument_is_refused_before_setting_up(args, env, message, tmp_path):
    done = run_demo(*args, WORK_DIR=str(tmp_path / 'work'), DEMO_DATA=str(tmp_path / 'data'), **env)
    assert done.returncode == 2
    assert message in done.stderr
    assert '[install]' not in done.stdout + done.stderr  # tools/install.sh never started
    assert list(tmp_path.iterdir()) == []


def test_help_names_both_jobs():
    done = run_demo('--help')
    assert done.returncode == 0
    assert '--long' in done.stdout and '--no-install' in done.stdout
    assert '150 iterations on 80x80' in done.stdout and '500 iterations on 128x128' in done.stdout


def test_every_config_the_script_names_exists():
    text = SCRIPT.read_text()
    named = re.findall(r'^(SHORT|LONG|REAL)=(\S+)$', text, re.M)
    assert [name for name, _ in named] == ['SHORT', 'LONG', 'REAL']
    for _, path in named:
        assert (ROOT / path).is_file(), path
