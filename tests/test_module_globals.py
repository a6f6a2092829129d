"""No module of vitspec assigns an attribute of another module at run time (``module.name = ...``,
``setattr(module, ...)``, ``del module.name``): a swapped module global is invisible from the code
that reads it, not thread-safe, and missed by any other import of the same name. A form a function
needs in one situation (export, compile) is a branch in that function (e.g.
``torch.compiler.is_exporting()``). Tests may patch (pytest's monkeypatch).

No vitspec module's attribute is assigned anywhere; the few patches of a third-party library
that offers no other way are listed below, each with why, and the list can only shrink."""

import ast
import importlib.util
from pathlib import Path

import pytest

from tests.utils import ROOT

PACKAGE = ROOT / 'vitspec'


# (file, what it assigns): why there is no other way
THIRD_PARTY_PATCHES = {
    ('vitspec/fileio/images.py', 'Image.MAX_IMAGE_PIXELS'): "PIL's documented setting of its "
    'decompression-bomb limit, lifted for one call; PIL takes no limit per call',
    ('vitspec/mmcv_ops/kernel_sets.py', "sys.modules[f'mmcv.ops.{name}'].ext_module"): "mmcv's "
    'op modules call their kernels through this module global; installing a kernel set is it',
    ('vitspec/engine/hooks/stored_order_visualization.py', 'mmcv.imfrombytes'): "mmseg's and "
    "mmdet's visualization hooks decode through mmcv.imfrombytes; to remove: a hook that reads "
    'the image itself',
}


def _module_name(path: Path) -> str:
    if not path.is_relative_to(ROOT):
        return path.stem
    parts = path.relative_to(ROOT).with_suffix('').parts
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError, AttributeError):
        return False


def module_names(tree: ast.Module, path: Path) -> set:
    """The names a file binds to modules by its imports."""
    package = _module_name(path) if path.name == '__init__.py' else _module_name(path.parent)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.asname or a.name.split('.')[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                anchor = package.rsplit('.', node.level - 1)[0] if node.level > 1 else package
                base = f'{anchor}.{base}' if base else anchor
            for a in node.names:
                if a.name != '*' and _is_module(f'{base}.{a.name}'):
                    names.add(a.asname or a.name)
    return names


def _root_name(node):
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def module_assignments(path: Path) -> list:
    """The targets (source text) of each assignment to, or deletion of, an attribute of a module
    in ``path`` (an item of a module's dict, ``os.environ[k] = v``, is not one)."""
    source = path.read_text()
    tree = ast.parse(source)
    modules = module_names(tree, path) | {'sys'}
    found = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in ('setattr', 'delattr') and node.args:
                targets = [ast.Attribute(value=node.args[0], attr='?')]
        for target in targets:
            if isinstance(target, ast.Attribute) and _root_name(target) in modules:
                code = target.value if target.attr == '?' else target
                found.append(ast.get_source_segment(source, code) or ast.unparse(code))
    return found


FILES = sorted(PACKAGE.rglob('*.py'))


def test_the_check_finds_what_it_looks_for(tmp_path):
    path = tmp_path / 'swap.py'
    path.write_text(
        'import torch.nn.functional as F\nfrom vitspec.layers import rel_pos\n'
        'from vitspec import layers as L\nimport sys\n'
        'def f():\n    rel_pos.rel_pos_lookup = None\n    setattr(F, "gelu", None)\n'
        '    L.pos_embed.resample_pos_embed = None\n    sys.modules["x"].y = 1\n'
        '    del rel_pos.table_index\n    self.x = 1\n    rel_pos = 1\n'
    )
    assert sorted(module_assignments(path)) == [
        'F',
        'L.pos_embed.resample_pos_embed',
        'rel_pos.rel_pos_lookup',
        'rel_pos.table_index',
        'sys.modules["x"].y',
    ]


@pytest.mark.parametrize('path', FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_assigns_an_attribute_of_a_module(path):
    name = str(path.relative_to(ROOT))
    found = {t for t in module_assignments(path) if (name, t) not in THIRD_PARTY_PATCHES}
    assert not found, f'{name} assigns module attributes: {sorted(found)}'


def test_the_listed_third_party_patches_are_still_there():
    """A patch removed is removed from the list too (the list only shrinks)."""
    found = {(str(p.relative_to(ROOT)), t) for p in FILES for t in module_assignments(p)}
    assert set(THIRD_PARTY_PATCHES) <= found
