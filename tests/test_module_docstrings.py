"""Every module under vitspec/ introduces itself by its concept: it has a docstring, and its first
sentence names what the module is or does, not the tool or the command-line flag that calls it
(``tools/test.py: ...``, ``--compile of ...``, ``What tools/x.py does ...``). A tool may be
named further on ("tools/test.py uses it")."""

import ast
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / 'vitspec'

# Modules whose concept is a flag: they open with the flag they implement.
FLAG_IS_THE_CONCEPT = {
    'vitspec/config/cfg_options.py',
    'vitspec/config/cfg_options_action.py',
    'vitspec/config/variables.py',
}
TOOL_OPENINGS = ('tools/', '--', 'what tools/')


def opening(source: str) -> Optional[str]:
    """The start of the module docstring's first sentence, markup (backquotes, quotes,
    brackets) stripped, lower-case; None for a module without a docstring."""
    doc = ast.get_docstring(ast.parse(source))
    if not doc or not doc.strip():
        return None
    return doc.strip().lstrip('`\'"([*_ ').lower()


def introduced_by_tool(source: str) -> bool:
    start = opening(source)
    return start is not None and start.startswith(TOOL_OPENINGS)


def modules():
    return sorted(PACKAGE.rglob('*.py'))


def name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_the_checks_tell_a_tool_opening_from_a_concept():
    assert opening('import os\n') is None
    assert opening('"""   """\n') is None
    assert introduced_by_tool('"""tools/test.py: the config against the checkpoint\'s."""')
    assert introduced_by_tool('"""``--compile`` of tools/train.py: torch.compile for a run."""')
    assert introduced_by_tool('"""What tools/test.py does to a config."""')
    assert introduced_by_tool('"""``tools/train.py --vis-backend``: visualizer backends."""')
    assert not introduced_by_tool('"""``torch.compile`` for a run (tools/train.py uses it)."""')
    assert not introduced_by_tool('"""The checkpoint a resume continues from (``--resume``)."""')


def test_the_package_has_modules_to_check():
    assert len(modules()) > 100


def test_every_module_has_a_docstring():
    missing = [name(p) for p in modules() if opening(p.read_text()) is None]
    assert not missing, f'modules without a docstring: {missing}'


def test_no_module_introduces_itself_by_a_tool_or_flag():
    wrong = [
        name(p)
        for p in modules()
        if name(p) not in FLAG_IS_THE_CONCEPT and introduced_by_tool(p.read_text())
    ]
    assert not wrong, (
        f'modules whose docstring opens with a tool or a flag rather than their concept: {wrong}'
    )


def test_the_flag_modules_still_open_with_their_flag():
    """An exemption that no longer applies (a module moved, or reworded) is removed."""
    stale = [
        path
        for path in sorted(FLAG_IS_THE_CONCEPT)
        if not (ROOT / path).is_file() or not introduced_by_tool((ROOT / path).read_text())
    ]
    assert not stale, f'FLAG_IS_THE_CONCEPT names modules that do not open with a flag: {stale}'
