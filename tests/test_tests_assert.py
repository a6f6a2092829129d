"""Every test says what passing means: each test function under tests/ holds an ``assert``, a
``pytest.raises`` / ``pytest.warns``, or a call of a function whose name starts with ``assert``
(the tests' own helpers, ``torch.testing.assert_close``, ``numpy.testing.assert_*``). A test
that only calls something passes on any result that raises nothing."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXPECTING = {'raises', 'warns', 'deprecated_call'}


def called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, 'id', '')


def says_what_passing_means(test: ast.AST) -> bool:
    for node in ast.walk(test):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call):
            name = called_name(node)
            if name.startswith('assert') or name in EXPECTING:
                return True
    return False


def collected_functions(tree: ast.Module):
    """pytest's: test_* functions at module level and in Test* classes."""
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name.startswith('Test'):
            yield from collected_functions(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name.startswith('test'):
                yield node


def silent_tests(root: Path, files) -> list:
    """'file:line name' of each test function in ``files`` that asserts nothing."""
    silent = []
    for path in files:
        tree = ast.parse(path.read_text(), filename=str(path))
        for test in collected_functions(tree):
            if not says_what_passing_means(test):
                silent.append(f'{path.relative_to(root)}:{test.lineno} {test.name}')
    return silent


def test_every_test_says_what_passing_means():
    silent = silent_tests(ROOT, sorted((ROOT / 'tests').rglob('test_*.py')))
    assert not silent, f'tests that assert nothing: {silent}'


def test_the_scan_finds_a_test_that_asserts_nothing(tmp_path):
    (tmp_path / 'tests').mkdir()
    (tmp_path / 'tests' / 'test_x.py').write_text(
        'import pytest\n'
        'def test_calls_only():\n    run()\n'
        'def test_asserts():\n    assert run()\n'
        'def test_expects():\n    with pytest.raises(ValueError):\n        run()\n'
        'def test_helper():\n    assert_same(run(), 1)\n'
        'class TestGroup:\n    def test_silent(self):\n        run()\n'
        'class Model:\n    def test_step(self):\n        run()\n'
    )
    assert silent_tests(tmp_path, [tmp_path / 'tests' / 'test_x.py']) == [
        'tests/test_x.py:2 test_calls_only',
        'tests/test_x.py:12 test_silent',
    ]
