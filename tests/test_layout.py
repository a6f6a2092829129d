"""docs/layout.md: tests mirror vitspec/, plus tests/tools, tests/configs and tests/e2e."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BESIDES = {'tools', 'configs', 'e2e'}


def folders(root: Path) -> set:
    return {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(('_', '.'))}


def test_every_test_folder_mirrors_a_package_part():
    unmirrored = folders(ROOT / 'tests') - folders(ROOT / 'vitspec') - BESIDES
    assert not unmirrored, f'tests/ folders with no vitspec/ part: {sorted(unmirrored)}'
