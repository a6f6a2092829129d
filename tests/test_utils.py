"""The test helpers themselves."""

import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from mmengine.logging import MessageHub
from mmengine.registry import DefaultScope

from tests.conftest import pytest_collection_modifyitems
from tests.utils import ROOT, restored_mmengine_instances, run_tool


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
    assert not alive(child), f"the tool's child {child} outlived its timeout"


def test_mmengine_instances_made_inside_are_gone_after():
    before = DefaultScope.get_current_instance()
    with restored_mmengine_instances():
        DefaultScope.get_instance('left-behind', scope_name='mmengine')
        MessageHub.get_instance('left-behind')
        assert DefaultScope.get_current_instance().scope_name == 'mmengine'
    assert DefaultScope.get_current_instance() is before
    assert not DefaultScope.check_instance_created('left-behind')
    assert not MessageHub.check_instance_created('left-behind')


def test_tests_under_e2e_are_marked_e2e_and_slow():
    e2e, unit = (
        SimpleNamespace(path=path, markers=[])
        for path in (ROOT / 'tests' / 'e2e' / 'test_x.py', ROOT / 'tests' / 'layers' / 'test_x.py')
    )
    for item in (e2e, unit):
        item.add_marker = item.markers.append
    pytest_collection_modifyitems([e2e, unit])
    assert [m.name for m in e2e.markers] == ['e2e', 'slow'] and unit.markers == []
