"""Every tool that writes declares its outputs with the one output policy (fileio/outputs.py)
and claims them: an output flag added with a plain ``add_argument`` would skip its checks."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLS = sorted((ROOT / 'tools').glob('*.py'))
OUTPUT_FLAGS = {'--out', '--json', '--cosine-out', 'dst'}
EXEMPT = {  # tool: why it writes outside the policy
    'make_model_table.py': "regenerates the repository's own doc in place, under git",
    'reproductions.py': "regenerates the repository's own doc in place, under git",
    'make_config_digests.py': "regenerates the repository's digest file in place, under git",
    'make_demo_data.py': 'writes each dataset into a hidden folder renamed into place with a '
    'completion marker; a complete dataset is kept unless --force (vitspec/demo/store.py)',
}


def calls(tree, name):
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (getattr(node.func, 'attr', None) == name or getattr(node.func, 'id', None) == name)
    ]


@pytest.mark.parametrize('tool', TOOLS, ids=lambda p: p.name)
def test_output_flags_go_through_the_output_policy(tool):
    tree = ast.parse(tool.read_text())
    plain = [
        call.args[0].value
        for call in calls(tree, 'add_argument')
        if call.args and isinstance(call.args[0], ast.Constant)
    ]
    if tool.name not in EXEMPT:
        assert not OUTPUT_FLAGS & set(plain), f'{tool.name}: declare outputs with add_output'
    if calls(tree, 'add_output'):
        assert calls(tree, 'claim_outputs'), f'{tool.name}: add_output without claim_outputs'
