"""tools/model_info.py: parameters over the plain backbone, FLOPs, per-block widths."""

import json

import pytest

from tests.utils import ROOT, run_tool
from vitspec.analysis.model_info import model_info

DEMO = 'configs/demo/fcn_specvit-tiny-p8-{}_2xb4-500it_demo-ade20k-128x128.py'


def test_specialized_adds_parameters_not_flops():
    plain = model_info(str(ROOT / DEMO.format('plain')))
    spec = model_info(str(ROOT / DEMO.format('spec')))
    assert plain['params_extra'] == 0 and plain['input_shape'] == [128, 128]
    assert spec['params_plain_backbone'] == plain['params_backbone']
    assert spec['params_extra'] == spec['params_backbone'] - plain['params_backbone'] > 0
    # one joint attention: the same FLOPs up to the CLS token's second qkv product
    assert abs(spec['flops_backbone'] / plain['flops_backbone'] - 1) < 1e-3
    # ViT FLOPs are about 2 * params * tokens (plus attention, minus embeddings)
    tokens = (128 // 8) ** 2 + 1
    assert 0.8 < plain['flops_backbone'] / (2 * plain['params_backbone'] * tokens) < 1.5
    assert [b['specialized'] for b in spec['blocks']] == ['norm,qkv'] * 2 + ['norm'] * 4


@pytest.mark.slow
def test_layerwise_scaling_visible_per_block(tmp_path):
    config = tmp_path / 'lws.py'
    config.write_text(f"""_base_ = ['{ROOT}/configs/_base_/models/backbones/specvit-tiny-p8.py',
    '{ROOT}/configs/_base_/models/techniques/layerwise_scaling.py',
    '{ROOT}/configs/_base_/models/specvit-tiny-p8_fcn.py']
model = dict(backbone=dict(_base_.backbone, **_base_.technique))
crop_size = (64, 96)
""")
    out = tmp_path / 'info.json'
    proc = run_tool(['tools/model_info.py', config, '--json', out])
    info = json.loads(out.read_text())
    heads = [b['heads'] for b in info['blocks']]
    widths = [b['mlp'] for b in info['blocks']]
    assert heads == sorted(heads) and heads[0] < heads[-1]
    assert widths == sorted(widths) and widths[0] < widths[-1]
    assert info['params_extra'] < 0 and info['input_shape'] == [64, 96]
    assert '| block | heads | head dim | MLP width |' in proc.stdout
    assert len([ln for ln in proc.stdout.splitlines() if ln.startswith('| ')]) == 1 + 6
