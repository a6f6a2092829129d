"""The test helpers themselves."""
import subprocess
import time
from pathlib import Path

import pytest

from tests.utils import run_tool


def alive(pid: int) -> bool:
    """Running or sleeping; a killed process waiting to be reaped (zombie) counts as dead."""
    stat = Path(f'/proc/{pid}/stat')
    try:
        return stat.read_text().rsplit(')', 1)[1].split()[0] != 'Z'
    except FileNotFoundError:
        return False


def test_run_tool_timeout_kills_the_tools_children(tmp_path):
    """Like torchrun's ranks, a child of the tool must not outlive the tool's timeout."""
    pid_file = tmp_path / 'child.pid'
    tool = tmp_path / 'spawn.sh'
    tool.write_text(f'#!/usr/bin/env bash\nsleep 120 &\necho $! > {pid_file}\nwait\n')
    tool.chmod(0o755)
    with pytest.raises(subprocess.TimeoutExpired):
        run_tool([tool], timeout=3)
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(child), f'the tool\'s child {child} outlived its timeout'
