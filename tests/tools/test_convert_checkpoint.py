"""tools/convert_checkpoint.py: every conversion it offers reports a failure the same way, one
'error: ...' line and exit status 1, with nothing written."""

import ast

import pytest

from tests.tools.test_convert_head import load_tool
from tests.utils import ROOT

TOOL = ROOT / 'tools/convert_checkpoint.py'


@pytest.mark.parametrize(
    'extra',
    [
        ['--format', 'timm'],
        ['--format', 'eomt'],
        ['--format', 'dinov2', '--head-config', 'HEAD_CONFIG'],
        ['--format', 'dinov3-detr', '--head-config', 'HEAD_CONFIG'],
    ],
    ids=['backbone', 'eomt', 'head', 'detector'],
)
def test_a_missing_source_is_one_error_line(tmp_path, capsys, extra):
    config = tmp_path / 'config.py'
    config.write_text('')
    extra = [str(config) if a == 'HEAD_CONFIG' else a for a in extra]
    src, dst = tmp_path / 'missing.pth', tmp_path / 'dst.pth'
    if '--head-config' in extra:  # the config is read first: make it the missing file
        config.unlink()
        missing = config
    else:
        missing = src
    assert load_tool().main([str(src), str(dst), *extra]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith('error: ') and str(missing.name) in err[0], err
    assert not dst.exists()


def test_eomt_refuses_the_backbone_options_through_the_same_report(tmp_path, capsys):
    dst = tmp_path / 'dst.pth'
    argv = [str(tmp_path / 'src.pth'), str(dst), '--format', 'eomt', '--use-ema']
    assert load_tool().main(argv) == 1
    err = capsys.readouterr().err
    assert err == 'error: --format eomt takes none of --backbone, --use-ema, --branch\n'
    assert not dst.exists()


def test_one_handler_reports_conversion_errors():
    tree = ast.parse(TOOL.read_text())
    handlers = [
        h
        for node in ast.walk(tree)
        if isinstance(node, ast.Try)
        for h in node.handlers
        if 'CheckpointError' in ast.unparse(h.type)
    ]
    assert len(handlers) == 1, [h.lineno for h in handlers]
