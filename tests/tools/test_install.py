import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.utils import ROOT


@pytest.mark.slow
def test_second_install_is_fast_and_checks_the_imports():
    venv = Path(sys.prefix)
    if not (venv / '.vitspec-install-stamp').is_file():
        pytest.skip(f'{venv} was not set up by tools/install.sh')
    start = time.monotonic()
    proc = subprocess.run(
        [str(ROOT / 'tools' / 'install.sh')],
        capture_output=True,
        text=True,
        env=dict(os.environ, VITSPEC_VENV=str(venv)),
        timeout=300,
    )
    elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr
    assert re.search(r'mmcv 2\.1\.0 \((torchvision|compiled) ops\)', proc.stdout), proc.stdout
    assert 'up to date' in proc.stdout
    assert elapsed < 60
