"""vitspec's errors: every class in vitspec/errors.py, all derived from VitspecError; and the one
'did you mean' hint of its messages."""

import ast
import builtins
from pathlib import Path

import pytest

import vitspec.errors as errors
from vitspec.errors import VitspecError, closest_names, did_you_mean, edit_distance

PACKAGE = Path(__file__).resolve().parents[1] / 'vitspec'
# installed as mmcv._ext too, where vitspec cannot be imported: keeps its own error
OWN_ERRORS = {('mmcv_ops', 'kernels')}
PYTHON_EXCEPTIONS = {
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}


def defined_classes():
    """(path, class name, the names of its bases) of every class under vitspec/."""
    for path in sorted(PACKAGE.rglob('*.py')):
        if path.relative_to(PACKAGE).parts[:2] in OWN_ERRORS:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef):
                bases = [ast.unparse(b).rpartition('.')[2] for b in node.bases]
                yield path.relative_to(PACKAGE.parent), node.name, bases


def exception_classes():
    """The classes under vitspec/ that derive from an exception, directly or through others."""
    classes = list(defined_classes())
    found = {}
    while True:
        new = {
            (path, name)
            for path, name, bases in classes
            if (path, name) not in found
            and any(b in PYTHON_EXCEPTIONS or b in {n for _, n in found} for b in bases)
        }
        if not new:
            return sorted(found)
        found.update(dict.fromkeys(new))


def test_every_error_class_is_in_errors_py():
    elsewhere = [f'{path}: {name}' for path, name in exception_classes()]
    elsewhere = [e for e in elsewhere if not e.startswith('vitspec/errors.py:')]
    assert not elsewhere, 'error classes outside vitspec/errors.py:\n' + '\n'.join(elsewhere)
    assert len(exception_classes()) > 10  # the scan finds them


def test_every_error_class_derives_from_vitspec_error():
    names = [name for path, name in exception_classes() if path.name == 'errors.py']
    wrong = [n for n in names if not issubclass(getattr(errors, n), VitspecError)]
    assert not wrong, f'not derived from VitspecError: {wrong}'
    assert sorted(n for n in errors.__all__ if n[0].isupper()) == sorted(names)


@pytest.mark.parametrize(
    ('name', 'python_base'),
    [
        ('ConfigError', ValueError),
        ('ConfigKeyError', ValueError),
        ('SavedConfigMismatch', ValueError),
        ('InputShapeError', ValueError),
        ('DataFileError', ValueError),
        ('LedgerError', ValueError),
        ('CheckpointError', RuntimeError),
    ],
)
def test_errors_keep_the_python_base_their_callers_catch(name, python_base):
    assert issubclass(getattr(errors, name), python_base)


def test_did_you_mean_names_the_closest_candidates():
    assert did_you_mean('embed_dim', ['embed_dims', 'depth']) == "did you mean 'embed_dims'?"
    assert did_you_mean('epsilon', ['eps', 'mode']) == "did you mean 'eps'?"
    assert did_you_mean('xyz', ['embed_dims']) == ''
    two = did_you_mean('vit-s.py', ['vit-s2.py', 'vit-ss.py', 'mae.py'], n=3)
    assert two in (
        "did you mean 'vit-s2.py' or 'vit-ss.py'?",
        "did you mean 'vit-ss.py' or 'vit-s2.py'?",
    )
    assert closest_names('persn', ['persons', 'person', 'car']) == ['person']
    assert closest_names('mode', ['mode']) == []  # a name is no typo of itself


def test_typos_only_counts_a_swap_as_one_edit_and_short_names_allow_one():
    assert edit_distance('laod_from', 'load_from') == 1
    assert did_you_mean('laod_form', ['load_from'], typos_only=True) == "did you mean 'load_from'?"
    assert closest_names('reusme', ['resume'], typos_only=True) == ['resume']
    assert closest_names('RESUM', ['resume'], typos_only=True) == ['resume']  # case ignored
    assert closest_names('resize', ['resume'], typos_only=True) == []  # a word of its own
    assert closest_names('resize', ['resume']) == ['resume']  # close enough for a hint
