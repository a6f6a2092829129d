"""rename_keys: the first matching rule renames a key, a key no rule knows is an error; and it
is the one loop that renames keys by rules where foreign layouts are read."""

import ast
from pathlib import Path

import pytest

from vitspec.checkpoints.layouts.rename import KEEP, SAME, rename_keys
from vitspec.errors import CheckpointError

ROOT = Path(__file__).resolve().parents[3]
HELPER = 'vitspec/checkpoints/layouts/rename.py'
# where foreign key layouts are read or could be written: the checkpoint code, the models (which
# kept their released formats beside them before) and the converters
SCOPE = ('vitspec/checkpoints', 'vitspec/models', 'vitspec/conversion')
# layouts not moved into vitspec/checkpoints/layouts yet; remove an entry once it uses the helper
NOT_YET_MOVED = set()


def test_the_first_matching_rule_renames_and_later_rules_are_not_tried():
    rules = [(r'^a\.', 'b.'), (r'^b\.', 'c.'), (r'\.x$', '.y')]
    assert rename_keys({'a.x': 1, 'b.z': 2}, rules, 'test') == {'b.x': 1, 'c.z': 2}


def test_a_replacement_may_be_a_function_of_the_match():
    rules = [(r'^layers\.(\d)\.', lambda m: f'layers.{2 * int(m[1])}.')]
    assert rename_keys({'layers.2.w': 0}, rules, 'test') == {'layers.4.w': 0}


def test_keys_no_rule_knows_are_one_error_naming_them_all_sorted():
    with pytest.raises(
        CheckpointError, match=r"^DINOv9's head: keys of no known part: b\.q, c\.q$"
    ):
        rename_keys({'c.q': 0, 'a.q': 1, 'b.q': 2}, [(r'^a\.', 'z.')], "DINOv9's head")


def test_keep_keeps_the_keys_no_earlier_rule_knows_and_same_keeps_a_known_key():
    sd = {'a.w': 0, 'other': 1, 'level_embed': 2}
    rules = [(r'^level_embed$', SAME), (r'^a\.', 'b.'), KEEP]
    assert list(rename_keys(sd, rules, 'test').items()) == [
        ('b.w', 0),
        ('other', 1),
        ('level_embed', 2),
    ]


def rule_loops(path: Path) -> list:
    """Lines of ``path`` where a loop (statement or comprehension) calls re.sub / re.subn or a
    compiled pattern's sub / subn: renaming keys by rules."""
    tree = ast.parse(path.read_text(), str(path))
    loops = (ast.For, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
    return sorted(
        {
            node.lineno
            for loop in ast.walk(tree)
            if isinstance(loop, loops)
            for node in ast.walk(loop)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ('sub', 'subn')
        }
    )


def loops_in(root: Path) -> dict:
    found = {}
    for part in SCOPE:
        for path in sorted((root / part).rglob('*.py')):
            lines = rule_loops(path)
            if lines:
                found[path.relative_to(root).as_posix()] = lines
    return found


def test_one_loop_renames_keys_by_rules():
    found = loops_in(ROOT)
    assert set(found) == {HELPER, *NOT_YET_MOVED}, (
        f'key-renaming loops outside {HELPER} (use rename_keys; a NOT_YET_MOVED entry that '
        f'uses it now leaves that list): {found}'
    )
    assert len(found[HELPER]) == 1, found[HELPER]


def test_the_check_finds_a_copied_loop(tmp_path):
    copy = tmp_path / 'vitspec/models/x/checkpoint_format.py'
    copy.parent.mkdir(parents=True)
    copy.write_text(
        'import re\n\ndef f(key, rules):\n    return [re.sub(p, r, key) for p, r in rules]\n'
    )
    assert loops_in(tmp_path) == {'vitspec/models/x/checkpoint_format.py': [4]}
