"""tools/make_demo_data.py: the command line writes a dataset and names its data root."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / 'tools' / 'make_demo_data.py'


@pytest.mark.slow
def test_command_line(tmp_path):
    out = tmp_path / 'cli'
    result = subprocess.run(
        [
            sys.executable,
            str(TOOL),
            '--out',
            str(out),
            '--datasets',
            'coco',
            '--num-train',
            '1',
            '--num-val',
            '1',
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert str(out / 'coco') in result.stdout
    assert (out / 'coco' / 'annotations' / 'instances_val2017.json').is_file()
