"""docs/layout.md is the tree: it names every package of vitspec/ (``vitspec/<part>/``), every
module at vitspec/'s top (``vitspec/<name>.py``) and every script of tools/ (``tools/<name>``),
and every vitspec/, tools/, tests/, configs/ or docs/ path it names exists."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = ROOT / 'docs' / 'layout.md'

# a path below one of the repository's folders; {a,b} is either name
PATH = re.compile(r'(?<![\w/.-])((?:vitspec|tools|tests|configs|docs)/(?:\{[\w,]+\}|[\w./-])*)')


def expand(path: str) -> list:
    """'configs/_base_/{models,datasets}' -> both paths."""
    match = re.search(r'\{([\w,]+)\}', path)
    if not match:
        return [path]
    head, tail = path[: match.start()], path[match.end() :]
    return [p for name in match.group(1).split(',') for p in expand(head + name + tail)]


def named_paths(text: str) -> set:
    return {p.rstrip('.') for m in PATH.findall(text) for p in expand(m)}


def packages(root: Path) -> set:
    """vitspec/'s folders that hold modules, below vitspec/."""
    base = root / 'vitspec'
    return {p.parent.relative_to(base).as_posix() for p in base.rglob('*.py')} - {'.'}


def not_named(root: Path, text: str) -> list:
    """The packages, top-level modules and tools of the tree that ``text`` does not name."""
    named = named_paths(text)
    wanted = [f'vitspec/{p}/' for p in packages(root)]
    wanted += [
        f'vitspec/{m.name}' for m in (root / 'vitspec').glob('*.py') if m.name != '__init__.py'
    ]
    wanted += [f'tools/{t.name}' for t in (root / 'tools').iterdir() if t.is_file()]
    return sorted(w for w in wanted if w not in named)


def missing(root: Path, text: str) -> list:
    return sorted(p for p in named_paths(text) if not (root / p).exists())


def test_the_layout_names_every_package_top_level_module_and_tool():
    absent = not_named(ROOT, LAYOUT.read_text())
    assert not absent, f'docs/layout.md does not name: {absent}'


def test_every_path_the_layout_names_exists():
    gone = missing(ROOT, LAYOUT.read_text())
    assert not gone, f'docs/layout.md names paths that do not exist: {gone}'


def test_every_folder_of_modules_is_a_package():
    """A folder of modules without __init__.py imports as a namespace package: no docstring to
    say what it is, and a stray folder would pass for one."""
    bare = sorted(p for p in packages(ROOT) if not (ROOT / 'vitspec' / p / '__init__.py').is_file())
    assert not bare, f'vitspec/ folders of modules without __init__.py: {bare}'


def test_the_checks_find_what_they_look_for(tmp_path):
    for path in ('vitspec/__init__.py', 'vitspec/a/__init__.py', 'vitspec/a/b/x.py'):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text('')
    (tmp_path / 'vitspec/top.py').write_text('')
    (tmp_path / 'tools').mkdir()
    (tmp_path / 'tools/run.py').write_text('')
    text = 'vitspec/a/ holds it; see vitspec/{a,gone}/ and tools/run.py.'
    assert named_paths(text) == {'vitspec/a/', 'vitspec/gone/', 'tools/run.py'}
    assert not_named(tmp_path, text) == ['vitspec/a/b/', 'vitspec/top.py']
    assert missing(tmp_path, text) == ['vitspec/gone/']
