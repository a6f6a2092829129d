"""``load_state_dict_strict`` is the one function that puts a checkpoint's weights into a model:
pretrained backbones, a Runner's load_from / resume / tools/test.py checkpoint, and trained
models for inference, export and the analysis tools."""

import ast

import pytest
import torch
from torch import nn

from tests.utils import ROOT
from vitspec.checkpoints.load import load_state_dict_strict
from vitspec.errors import CheckpointError

LOADER = 'vitspec/checkpoints/load.py'


def strict_loaders(path) -> list:
    """Where ``path`` checks that a state dict fits a model (``check_fits``) or loads one with
    mmengine's lenient ``load_state_dict`` function."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, 'id', None) == 'check_fits':
            found.append(f'{node.func.id}:{node.lineno}')
        if isinstance(node, ast.ImportFrom) and (node.module or '').startswith('mmengine'):
            if any(alias.name == 'load_state_dict' for alias in node.names):
                found.append(f'import load_state_dict:{node.lineno}')
    return found


def test_one_module_checks_and_loads_a_checkpoint():
    loaders = {}
    for path in sorted([*ROOT.glob('vitspec/**/*.py'), *ROOT.glob('tools/**/*.py')]):
        found = strict_loaders(path)
        if found:
            loaders[path.relative_to(ROOT).as_posix()] = found
    assert list(loaders) == [LOADER], f'load through load_state_dict_strict instead: {loaders}'


def test_batchnorm_counters_a_checkpoint_lacks_keep_the_models_value():
    model = nn.Sequential(nn.Conv2d(1, 2, 1), nn.BatchNorm2d(2))
    model[1].num_batches_tracked.fill_(7)
    sd = {k: torch.ones_like(v) for k, v in model.state_dict().items()}
    del sd['1.num_batches_tracked']
    assert load_state_dict_strict(model, sd) == ['1.num_batches_tracked']
    assert model[1].num_batches_tracked.item() == 7
    assert torch.equal(model[1].running_var, torch.ones(2))


def test_the_message_names_the_file_and_the_model():
    model = nn.Sequential(nn.Linear(2, 2))
    sd = {'0.weight': torch.ones(2, 2)}
    with pytest.raises(CheckpointError) as info:
        load_state_dict_strict(model, sd, 'w.pth', target='the model of this config')
    assert (
        str(info.value)
        == 'w.pth does not fit the model of this config:\n  missing keys (1): 0.bias'
    )
    with pytest.raises(CheckpointError, match='^checkpoint does not fit Sequential:'):
        load_state_dict_strict(model, sd)
