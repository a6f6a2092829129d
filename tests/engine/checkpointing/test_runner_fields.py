"""mmengine's private Runner fields are written in one module, checkpointing/runner_fields.py: an
mmengine that renames them breaks there only. A static check of vitspec/ and tools/: no other
module assigns an attribute starting with '_' to an object named ``runner`` (or ``*_runner``),
to ``self`` in a class derived from a Runner, or through ``setattr``."""

import ast

from tests.utils import ROOT

WRAPPER = 'vitspec/engine/checkpointing/runner_fields.py'


def _named_runner(node) -> bool:
    name = getattr(node, 'id', None) or getattr(node, 'attr', None) or ''
    return name == 'runner' or name.endswith('_runner')


def _runner_classes(tree) -> set:
    """The classes of ``tree`` derived from a class whose name ends in 'Runner'."""
    return {
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and any(
            (getattr(b, 'id', None) or getattr(b, 'attr', '')).endswith('Runner')
            for b in node.bases
        )
    }


def private_runner_writes(source: str) -> list:
    """Line numbers where ``source`` writes a private attribute of a Runner."""
    tree = ast.parse(source)
    runner_selves = {
        id(node)
        for cls in _runner_classes(tree)
        for node in ast.walk(cls)
        if isinstance(node, ast.Name) and node.id == 'self'
    }
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, 'id', None) == 'setattr'
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and str(node.args[1].value).startswith('_')
            and (_named_runner(node.args[0]) or id(node.args[0]) in runner_selves)
        ):
            lines.append(node.lineno)
            continue
        else:
            continue
        for target in targets:
            for part in ast.walk(target):
                if (
                    isinstance(part, ast.Attribute)
                    and part.attr.startswith('_')
                    and (_named_runner(part.value) or id(part.value) in runner_selves)
                ):
                    lines.append(part.lineno)
    return lines


def test_the_check_finds_each_way_of_writing_a_field():
    source = '\n'.join(
        [
            'runner._has_loaded = True',
            'self.runner._load_from = f',
            'a, test_runner._resume = 1, 2',
            "setattr(runner, '_has_loaded', True)",
            'class R(CheckedRunner):',
            '    def f(self):',
            '        self._has_loaded = True',
            'class Hook:',
            '    def f(self, runner):',
            '        self._seen = 0',  # a hook's own field: allowed
            '        runner.work_dir = 1',  # public: allowed
        ]
    )
    assert private_runner_writes(source) == [1, 2, 3, 4, 7]


def test_only_the_wrapper_module_writes_private_runner_fields():
    found = {}
    for path in sorted([*ROOT.glob('vitspec/**/*.py'), *ROOT.glob('tools/**/*.py')]):
        relative = path.relative_to(ROOT).as_posix()
        lines = private_runner_writes(path.read_text())
        if lines and relative != WRAPPER:
            found[relative] = lines
    assert not found, f'write them through {WRAPPER}: {found}'
    assert private_runner_writes((ROOT / WRAPPER).read_text())  # the wrapper is where they are
