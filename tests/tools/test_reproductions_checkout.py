"""tools/reproductions.py reads the ledger, configs and docs of the checkout it belongs
to, not of the checkout vitspec is imported from, and says which one it read."""

import importlib.util
import shutil

from tests.utils import ROOT

SHARED = """
datasets: [toy]
sources: {paper: 'the paper, table 1'}
"""
LEDGER = """
rows:
  - id: r1
    paper: P
    table: T1
    row: ViT-S
    metric: mIoU
    value: 40.0
    value_source: paper
    config: configs/toy/x.py
    checkpoint: {file: not released}
    convert: '-'
    fields:
      optim_wrapper.optimizer.lr: {value: 0.1, source: paper}
"""


def other_checkout(tmp_path, lr: float):
    """A second checkout: tools/reproductions.py, a one-row ledger and its config."""
    (tmp_path / 'tools').mkdir()
    (tmp_path / 'configs' / 'toy').mkdir(parents=True)
    (tmp_path / 'docs').mkdir()
    shutil.copy(ROOT / 'tools' / 'reproductions.py', tmp_path / 'tools')
    (tmp_path / 'configs' / 'reproductions.yaml').write_text(SHARED)
    (tmp_path / 'configs' / 'toy' / 'reproductions.yaml').write_text(LEDGER)
    (tmp_path / 'configs' / 'toy' / 'x.py').write_text(
        f'optim_wrapper = dict(optimizer=dict(lr={lr}))\n'
    )
    spec = importlib.util.spec_from_file_location(
        'other_reproductions', tmp_path / 'tools' / 'reproductions.py'
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def test_check_reads_the_configs_of_the_tools_own_checkout(tmp_path, capsys):
    tool = other_checkout(tmp_path, lr=0.5)
    assert tool.main(['--check']) == 1
    out = capsys.readouterr().out
    assert out.startswith(f'reproductions: the ledger, configs and docs of {tmp_path}')
    assert f'vitspec itself is imported from {ROOT}' in out
    assert 'r1: optim_wrapper.optimizer.lr = 0.5 in configs/toy/x.py, ledger says 0.1' in out


def test_docs_are_written_into_the_tools_own_checkout(tmp_path):
    tool = other_checkout(tmp_path, lr=0.1)
    readme = (ROOT / 'README.md').read_text()
    assert tool.main(['--check']) == 0
    assert tool.main([]) == 0
    assert '| P, T1: ViT-S | mIoU 40.0 |' in (tmp_path / 'docs' / 'reproduce.md').read_text()
    assert '| P, T1: ViT-S' not in (ROOT / 'docs' / 'reproduce.md').read_text()
    assert (tmp_path / 'docs' / 'reproduce.md').is_file()
    assert (ROOT / 'README.md').read_text() == readme
