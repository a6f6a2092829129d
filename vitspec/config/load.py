"""Naming the file and line of a syntax error in a config or one of its ``_base_`` files.

mmengine's ``Config.fromfile`` parses the config text without a file name, so a syntax error
anywhere in the ``_base_`` chain reports ``File "<unknown>"``.
"""

import ast
import os.path as osp

from mmengine.config import Config

from vitspec.config.chain import base_paths
from vitspec.config.location import config_path


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
        pending.extend(base_paths(tree, filename))
    return None


def _located(filename: str, exc: SyntaxError) -> SyntaxError:
    text = (exc.text or '').strip()
    message = f'{filename}:{exc.lineno}: {exc.msg}' + (f': {text}' if text else '')
    details = (filename, exc.lineno, exc.offset, exc.text, exc.end_lineno, exc.end_offset)
    return SyntaxError(message, details)
