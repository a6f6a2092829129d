"""The package's imports point one way, and importing it patches nothing in mmengine.

Every import statement under vitspec/ counts, at module level or inside a function: an import
moved into a function still makes the dependency."""

import ast
import subprocess
import sys
import textwrap
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / 'vitspec'

# What each part of the package (its first name below vitspec) may import, bottom to top.
# A part not listed here may import anything but the top parts; nothing imports the root.
MODEL_SIDE = {'errors', 'fileio', 'layers', 'checkpoints', 'models', 'config'}
ALLOWED = {
    'errors': set(),
    'version': set(),
    'depth_crops': set(),
    # mmcv's ops, one package whose modules sit on three floors (MMCV_OPS_FLOORS): the kernels,
    # copied into mmcv's wheel as mmcv._ext (tools/install.sh) where mmseg and mmdet import them,
    # import no vitspec; which kernels are installed, the switch between kernel sets, the
    # autocast wrappers and the run-time check hook import only errors and sit below engine,
    # which uses them; the benchmark is on benchmarking's floor, the parity check on diagnostics'
    'mmcv_ops.kernels': set(),
    'mmcv_ops': {'errors', 'mmcv_ops.kernels'},
    'fileio': {'errors'},
    'layers': {'errors'},
    'checkpoints': {'errors', 'fileio', 'layers', 'config'},
    'models': {'errors', 'fileio', 'layers', 'checkpoints'},
    'datasets': {'errors', 'fileio', 'depth_crops'},
    'evaluation': {'errors', 'fileio', 'depth_crops'},
    # config handling: where the configs are, the config tree, --cfg-options, key typos, digests
    'config': {'errors'},
    'engine': {*MODEL_SIDE, 'datasets', 'mmcv_ops'},
    # runs: a run of a config: its Runner, work dir (lock, logs, final metrics), evaluation
    'runs': {*MODEL_SIDE, 'datasets', 'evaluation', 'depth_crops', 'engine'},
    'conversion': MODEL_SIDE,  # released files into checkpoints of our models
    'analysis': MODEL_SIDE,  # inside a backbone: source, size, features, conditioning
    'ledger': {'errors', 'fileio', 'config', 'evaluation', 'depth_crops', 'engine', 'runs'},
    'diagnostics': {'errors', 'fileio', 'engine', 'demo', 'mmcv_ops'},  # the machine: GPU check
    # a trained model on a user's images: inputs, loading, prediction, sliding windows, writers
    'inference': {*MODEL_SIDE, 'datasets', 'evaluation', 'depth_crops', 'engine', 'runs'},
    # a trained model as an ONNX file, checked with onnxruntime; loads models as inference does
    'export': {*MODEL_SIDE, 'inference'},
}
TOP = {'ledger', 'conversion', 'analysis', 'diagnostics', 'export'}  # nothing imports these
# Modules of vitspec.mmcv_ops that count as another part of the order (and their submodules)
MMCV_OPS_FLOORS = {
    'vitspec.mmcv_ops.kernels': 'mmcv_ops.kernels',
    'vitspec.mmcv_ops.benchmark': 'benchmarking',
    'vitspec.mmcv_ops.device_parity': 'diagnostics',
}

# Within vitspec.engine, what each of its parts may import: the runner at the top, the hooks and
# the optimizer wrappers below it, checkpoint handling at the bottom (mmcv's ops, which hooks and
# optim use, are vitspec.mmcv_ops). The package's __init__ imports them all, and none of them
# imports it.
ENGINE_ALLOWED = {
    'checkpointing': set(),
    'cpu_distributed': set(),
    'optim': set(),
    'hooks': {'checkpointing'},
    'checked_runner': {'checkpointing', 'hooks'},
}


class Import(NamedTuple):
    source: str  # importing module
    target: str  # imported vitspec module
    names: tuple  # for ``from target import a, b``: ('a', 'b')
    where: str  # path:line, and whether inside a function

    def __str__(self):
        return f'{self.where}: {self.source} imports {self.target}'


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix('').parts
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


@lru_cache(maxsize=None)
def package_modules() -> Dict[str, Path]:
    return {module_name(p, ROOT): p for p in sorted(PACKAGE.rglob('*.py'))}


def resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module
    base = module.split('.')
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return '.'.join(base + ([node.module] if node.module else []))


def imports_of(path: Path, module: str, known: Dict[str, Path]) -> List[Import]:
    tree = ast.parse(path.read_text(), str(path))
    in_function = {
        id(n)
        for f in ast.walk(tree)
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
        for n in ast.walk(f)
    }
    found = []
    for node in ast.walk(tree):
        where = f'{path.relative_to(ROOT)}:{getattr(node, "lineno", 0)}' + (
            ' (inside a function)' if id(node) in in_function else ''
        )
        if isinstance(node, ast.Import):
            found += [Import(module, a.name, (), where) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = resolve(node, module, path.name == '__init__.py')
            names = tuple(a.name for a in node.names)
            submodules = [n for n in names if f'{target}.{n}' in known]
            if len(submodules) < len(names):  # reads names from target, not only modules
                found.append(Import(module, target, names, where))
            found += [Import(module, f'{target}.{n}', (), where) for n in submodules]
    return [i for i in found if i.target == 'vitspec' or i.target.startswith('vitspec.')]


@lru_cache(maxsize=None)
def all_imports() -> List[Import]:
    known = package_modules()
    return [i for module, path in known.items() for i in imports_of(path, module, known)]


def part(module: str) -> str:
    """The part of the package a module belongs to: its first name below vitspec, or its floor
    in MMCV_OPS_FLOORS."""
    for prefix, floor in MMCV_OPS_FLOORS.items():
        if module == prefix or module.startswith(prefix + '.'):
            return floor
    return module.split('.')[1] if module.count('.') else 'vitspec'


def find_cycles(edges: Dict[str, Dict[str, Import]]) -> List[List[str]]:
    """One cycle per strongly connected component with more than one node (Tarjan)."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in edges.get(node, {}):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return [(cycle_through(sorted(c)[0], c, edges), c) for c in components]


def cycle_through(start: str, component: set, edges) -> List[str]:
    paths, seen = [[start]], {start}
    while paths:
        path = paths.pop(0)
        for succ in sorted(edges.get(path[-1], {})):
            if succ == start:
                return path + [start]
            if succ in component and succ not in seen:
                seen.add(succ)
                paths.append(path + [succ])
    raise AssertionError('no cycle in a strongly connected component')


def describe(cycle: List[str], component: set, edges) -> str:
    lines = [f'  {a} -> {b}   ({edges[a][b].where})' for a, b in zip(cycle, cycle[1:])]
    return '\n'.join(lines + [f'  (all in this circle: {", ".join(sorted(component))})'])


def graph(key) -> Dict[str, Dict[str, Import]]:
    edges = {}
    for imp in all_imports():
        src, dst = key(imp.source), key(imp.target)
        if src != dst:
            edges.setdefault(src, {}).setdefault(dst, imp)
    return edges


@pytest.mark.parametrize('level', ['module', 'part'])
def test_no_import_cycle(level):
    edges = graph((lambda m: m) if level == 'module' else part)
    cycles = find_cycles(edges)
    assert not cycles, f'import cycles between vitspec {level}s:\n' + '\n\n'.join(
        describe(cycle, component, edges) for cycle, component in cycles
    )


def test_layer_order():
    wrong = []
    for imp in all_imports():
        src, dst = part(imp.source), part(imp.target)
        if src == dst:
            continue
        if dst == 'vitspec':
            wrong.append(f'{imp}: nothing inside the package imports the package root')
        elif dst in TOP:
            wrong.append(f'{imp}: nothing outside vitspec.{dst} imports it (a top part)')
        elif src in ALLOWED and dst not in ALLOWED[src]:
            allowed = ', '.join(sorted(ALLOWED[src])) or 'nothing from vitspec'
            wrong.append(f'{imp}: {src} may import {allowed}')
    assert not wrong, 'imports against the layer order:\n' + '\n'.join(wrong)


def engine_part(module: str) -> str:
    """The part of vitspec.engine a module belongs to ('engine' for the package itself)."""
    return module.split('.')[2] if module.count('.') > 1 else 'engine'


def test_engine_order():
    wrong = []
    for imp in all_imports():
        if part(imp.source) != 'engine' or part(imp.target) != 'engine':
            continue
        src, dst = engine_part(imp.source), engine_part(imp.target)
        if src == dst or src == 'engine':
            continue
        if dst == 'engine':
            wrong.append(f'{imp}: nothing inside vitspec.engine imports the package itself')
        elif src not in ENGINE_ALLOWED:
            wrong.append(f'{imp}: vitspec.engine.{src} is not in ENGINE_ALLOWED')
        elif dst not in ENGINE_ALLOWED[src]:
            allowed = ', '.join(sorted(ENGINE_ALLOWED[src])) or 'no other part of engine'
            wrong.append(f'{imp}: engine.{src} may import {allowed}')
    assert not wrong, 'imports against the order inside vitspec.engine:\n' + '\n'.join(wrong)


@lru_cache(maxsize=None)
def top_level_names(path: Path) -> set:
    """Names a module binds outside functions and classes (including in if / try blocks)."""
    names, todo = set(), list(ast.parse(path.read_text()).body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split('.')[0] for a in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        else:
            for field in ('body', 'orelse', 'finalbody', 'handlers'):
                todo += getattr(node, field, [])
    return names


@pytest.mark.parametrize('folder', ['vitspec', 'tools', 'tests'])
def test_every_vitspec_import_resolves(folder):
    """Also imports inside functions, which only fail when the function runs."""
    known = package_modules()
    broken = []
    for path in sorted((ROOT / folder).rglob('*.py')):
        for imp in imports_of(path, module_name(path, ROOT), known):
            if imp.target not in known:
                broken.append(f'{imp.where}: no module {imp.target}')
                continue
            missing = [
                n
                for n in imp.names
                if n != '*'
                and f'{imp.target}.{n}' not in known
                and n not in top_level_names(known[imp.target])
            ]
            if missing:
                broken.append(f'{imp.where}: {imp.target} has no {", ".join(missing)}')
    assert not broken, 'imports of vitspec names that do not exist:\n' + '\n'.join(broken)


MMENGINE_STATE = """
import importlib
import pkgutil

import mmengine.fileio.io as mmengine_io
from mmengine.fileio import get_file_backend
from mmengine.fileio.backends import backends, prefix_to_backends
from mmengine.runner import CheckpointLoader

get_file_backend('/tmp/x.pth', enable_singleton=True)  # a cached local backend instance


def state():
    return dict(schemes=list(CheckpointLoader._schemes.items()), backends=dict(backends),
                prefix_to_backends=dict(prefix_to_backends),
                backend_instances=dict(mmengine_io.backend_instances))


def changed(before, after):
    return [k for k in before if before[k] != after[k]]


before = state()
import vitspec
assert not changed(before, state()), f'import vitspec changed {changed(before, state())}'
for info in pkgutil.walk_packages(vitspec.__path__, 'vitspec.'):
    importlib.import_module(info.name)
    assert not changed(before, state()), f'import {info.name} changed {changed(before, state())}'

from vitspec.fileio import AtomicLocalBackend, install_safe_io, load_local_checkpoint
restore = install_safe_io()
assert CheckpointLoader._get_checkpoint_loader('/tmp/x.pth') is load_local_checkpoint
assert backends['local'] is prefix_to_backends[''] is AtomicLocalBackend
assert type(get_file_backend('/tmp/x.pth', enable_singleton=True)) is AtomicLocalBackend
restore()
after = state()
assert changed(before, after) in ([], ['backend_instances']), changed(before, after)
assert not any(isinstance(b, AtomicLocalBackend) for b in after['backend_instances'].values())
print('ok')
"""


def test_importing_vitspec_patches_nothing_and_install_safe_io_does():
    proc = subprocess.run(
        [sys.executable, '-c', textwrap.dedent(MMENGINE_STATE)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0 and proc.stdout.strip() == 'ok', proc.stderr[-3000:]
