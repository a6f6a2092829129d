"""tests/ mirrors vitspec/ (docs/layout.md, "tests/"). The rule enforced here:

1. Packages, both ways. Every package of vitspec/ (a folder holding modules) has its folder
   tests/<part>/ holding at least one test (a test_*.py file with a test function in it), and
   every folder of tests/ is the mirror of a package or lies under one of ``EXTRA_FOLDERS``.
2. Modules, one way. A test file named after a module of vitspec/ (tests/<part>/test_<name>.py
   with a vitspec/<other>/<name>.py) sits in that module's mirror, tests/<other>/; outside it
   only where ``NAME_COLLISIONS`` names the file and what it tests instead. The extra folders
   name their files after tools, options and configs, and are not held to this.

Not every module has a test file of its own name: a module is tested through its package's
tests (tests/models/eomt/test_network.py tests the query blocks, the mask module and the
network), so the per-module direction "each vitspec/<part>/<name>.py has a test_<name>.py" is
not a rule here.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

EXTRA_FOLDERS = {
    'tools': "a test that runs a script of tools/ or parses its options (tools/ isn't a package)",
    'configs': 'the configs of configs/ built and checked (configs/ is no package of vitspec/)',
    'e2e': 'real runs of the tools end to end, over several packages at once',
}

# tests/<part>/test_<name>.py: what it tests, where vitspec/<other>/<name>.py is another thing
NAME_COLLISIONS = {
    'layers/test_autocast.py': "the layers' autograd Functions under autocast, not mmcv ops' "
    'autocast wrappers',
    'models/test_compile.py': "SpecViT and the heads under torch.compile, not the runs' --compile",
}

TEST_FUNCTION = re.compile(r'^\s*(async\s+)?def test_', re.MULTILINE)


def packages(root: Path) -> set:
    """vitspec/'s folders holding modules, as paths below vitspec/ ('' is vitspec/ itself)."""
    base = root / 'vitspec'
    return {p.parent.relative_to(base).as_posix() for p in base.rglob('*.py')} - {'.'}


def folders_of_tests(root: Path) -> set:
    base = root / 'tests'
    return {
        p.relative_to(base).as_posix()
        for p in base.rglob('*')
        if p.is_dir() and not any(part.startswith(('_', '.')) for part in p.relative_to(base).parts)
    }


def holds_a_test(folder: Path) -> bool:
    return any(TEST_FUNCTION.search(f.read_text()) for f in folder.glob('test_*.py'))


def untested_packages(root: Path) -> list:
    return sorted(p for p in packages(root) if not holds_a_test(root / 'tests' / p))


def unmirrored_test_folders(root: Path) -> list:
    return sorted(
        f
        for f in folders_of_tests(root)
        if f not in packages(root) and f.split('/')[0] not in EXTRA_FOLDERS
    )


def misplaced_test_files(root: Path) -> list:
    """(test file, the folders its name's modules would put it in) for each test file named
    after a module of another package."""
    homes = {}
    for module in (root / 'vitspec').rglob('*.py'):
        if module.name != '__init__.py':
            home = module.parent.relative_to(root / 'vitspec').as_posix()
            homes.setdefault(module.stem, set()).add(home)
    misplaced = []
    for test in sorted((root / 'tests').rglob('test_*.py')):
        rel = test.relative_to(root / 'tests')
        folder = rel.parent.as_posix()
        if folder.split('/')[0] in EXTRA_FOLDERS or rel.as_posix() in NAME_COLLISIONS:
            continue
        where = homes.get(test.stem[len('test_') :], set())
        if where and folder not in where:
            misplaced.append((rel.as_posix(), sorted(where)))
    return misplaced


def test_every_package_has_a_test_folder_with_a_test():
    missing = untested_packages(ROOT)
    assert not missing, f'vitspec/ packages with no test under tests/<part>/: {missing}'


def test_every_test_folder_mirrors_a_package():
    extra = unmirrored_test_folders(ROOT)
    assert not extra, (
        f'tests/ folders with no vitspec/ package of the same path: {extra} (move them, or add '
        f'an extra folder with its reason to EXTRA_FOLDERS and docs/layout.md)'
    )


def test_a_test_file_named_after_a_module_sits_in_its_mirror():
    misplaced = misplaced_test_files(ROOT)
    assert not misplaced, f"test files outside their module's mirror: {misplaced}"


def test_each_name_collision_is_still_one():
    """An entry whose file is gone, or whose name no longer is another package's module, is
    stale: it would let a misplaced file through later."""
    homes = {p.stem: p.parent for p in (ROOT / 'vitspec').rglob('*.py')}
    for rel in NAME_COLLISIONS:
        assert (ROOT / 'tests' / rel).is_file(), rel
        assert Path(rel).stem[len('test_') :] in homes, rel


def test_the_extra_folders_are_the_ones_the_layout_doc_gives_reasons_for():
    doc = (ROOT / 'docs' / 'layout.md').read_text()
    for folder in EXTRA_FOLDERS:
        assert f'tests/{folder}' in doc, folder


def write(root: Path, *paths: str) -> None:
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text('def test_x():\n    assert True\n' if 'test_' in path else '')


def test_the_checks_find_what_they_look_for(tmp_path):
    write(
        tmp_path,
        'vitspec/__init__.py',
        'vitspec/errors.py',
        'vitspec/a/__init__.py',
        'vitspec/a/thing.py',
        'vitspec/b/__init__.py',
        'vitspec/b/other.py',
        'tests/test_errors.py',
        'tests/a/test_other.py',
        'tests/a/helper.py',
        'tests/stray/test_y.py',
        'tests/tools/test_thing.py',
    )
    (tmp_path / 'tests/b').mkdir()
    (tmp_path / 'tests/b/test_empty.py').write_text('X = 1\n')
    assert untested_packages(tmp_path) == ['b']
    assert unmirrored_test_folders(tmp_path) == ['stray']
    assert misplaced_test_files(tmp_path) == [('a/test_other.py', ['b'])]
