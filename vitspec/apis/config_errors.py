"""Naming the file and line of a syntax error in a config or one of its ``_base_`` files.

mmengine's ``Config.fromfile`` parses the config text without a file name, so a syntax error
anywhere in the ``_base_`` chain reports ``File "<unknown>"``.
"""

import ast
import os.path as osp

from mmengine.config import Config

from vitspec.config_dir import config_path

BASE_KEY = '_base_'


def load_config(path: str) -> Config:
    """``Config.fromfile(path)``; a syntax error names the file, the line and its text. A
    ``vitspec::ade20k/x.py`` name is read from the package's configs (``config_path``)."""
    path = config_path(path)
    try:
        return Config.fromfile(path)
    except SyntaxError:
        located = find_syntax_error(path)
        if located is None:  # not in the files themselves (e.g. after a {{...}} substitution)
            raise
        raise located from None


def find_syntax_error(path: str):
    """The first ``.py`` file of ``path`` and its ``_base_`` chain that does not parse, as a
    SyntaxError whose message starts with ``file:line``; None when all of them parse."""
    seen = set()
    pending = [osp.abspath(path)]
    while pending:
        filename = pending.pop(0)
        if filename in seen or not filename.endswith('.py') or not osp.isfile(filename):
            continue
        seen.add(filename)
        with open(filename, encoding='utf-8') as f:
            source = f.read()
        try:
            tree = ast.parse(source, filename=filename)
        except SyntaxError as exc:
            return _located(filename, exc)
        pending.extend(_base_paths(tree, filename))
    return None


def _located(filename: str, exc: SyntaxError) -> SyntaxError:
    text = (exc.text or '').strip()
    message = f'{filename}:{exc.lineno}: {exc.msg}' + (f': {text}' if text else '')
    details = (filename, exc.lineno, exc.offset, exc.text, exc.end_lineno, exc.end_offset)
    return SyntaxError(message, details)


def _base_paths(tree: ast.Module, filename: str) -> list:
    """The files a parsed config names in ``_base_``, resolved as mmengine resolves them."""
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == BASE_KEY
        ):
            try:
                bases = ast.literal_eval(node.value)
            except ValueError:  # not a literal: mmengine will say so itself
                return []
            bases = [bases] if isinstance(bases, str) else list(bases)
            return [_resolve(base, filename) for base in bases if isinstance(base, str)]
    return []


def _resolve(base: str, filename: str) -> str:
    try:
        return osp.abspath(Config._get_cfg_path(base, filename)[0])
    except (ImportError, FileNotFoundError, ValueError):  # mmengine reports these itself
        return ''
