"""The DINOv3 ViT-S/16 pair: SpecViT from the backbone fragment against timm's DINOv3 port, with
the weights of the 'timm-dinov3' worker, refused when the two would not compute the same thing.
Wiring only: no timing is asserted."""

import pytest
import torch

from vitspec.benchmarking import dinov3
from vitspec.benchmarking.case import Case
from vitspec.benchmarking.measure import run_setting
from vitspec.benchmarking.presets import PRESETS, TARGETS
from vitspec.benchmarking.targets import check_targets

TOY = (64, 2, 2, 8)  # dims, layers, heads, patch


def test_specvit_carries_the_timm_workers_weights_and_features():
    torch.manual_seed(0)  # as each benchmark worker starts
    ref = dinov3.timm_dinov3(*TOY).eval()
    torch.manual_seed(0)
    model = dinov3.specvit_dinov3(*TOY)
    assert model.rope is not None and model.pos_embed is None
    assert model.num_register_tokens == 4
    x = torch.randn(2, 3, 24, 40)  # not the fragment's size, not square
    with torch.no_grad():
        [got] = model(x)
        want = ref.forward_features(x)[:, ref.num_prefix_tokens :]
    assert got.shape == (2, 64, 3, 5)
    assert (got.flatten(2).transpose(1, 2) - want).abs().max() <= 1e-5


def test_a_pair_that_computes_differently_is_refused(monkeypatch):
    fragment = dinov3.fragment_backbone
    monkeypatch.setattr(
        dinov3, 'fragment_backbone', lambda *size: dict(fragment(*size), final_norm=False)
    )
    with pytest.raises(RuntimeError, match='differs from timm vit_small_patch16_dinov3'):
        dinov3.specvit_dinov3(*TOY)


@pytest.mark.parametrize('mode', ['inference', 'training'])
def test_each_model_of_the_pair_runs_a_timed_step(mode):
    for name in ('timm-dinov3', 'specvit-dinov3'):
        case = Case(name, 't8', 32, 2, 'fp32', mode, torch.device('cpu'))
        assert case.timed() > 0 and case.flops() > 0


@pytest.mark.slow
def test_the_pair_runs_in_workers_and_meets_its_targets_check():
    setting = dict(
        size='t8',
        img=32,
        batch=2,
        dtype='fp32',
        mode='training',
        models=['timm-dinov3', 'specvit-dinov3'],
    )
    result = run_setting(setting, torch.device('cpu'), rounds=2, warmup=1)
    timm_row, specvit_row = result['rows']
    assert specvit_row['gflops'] == pytest.approx(timm_row['gflops'], rel=0.01)
    assert len(specvit_row['times_s']) == 2
    [line] = check_targets(
        [('pair', (0, 'specvit-dinov3'), (0, 'timm-dinov3'), 'speed', '>= 1.00')], [result]
    )
    assert line.startswith('- pair: ') and '95 % interval' in line


def test_the_dinov3_preset_pairs_specvit_with_timm_per_mode():
    for what, (i, a), (j, b), quantity, bound in TARGETS['dinov3']:
        setting = PRESETS['dinov3'][i]
        assert i == j and (a, b, quantity, bound) == (
            'specvit-dinov3',
            'timm-dinov3',
            'speed',
            '>= 1.00',
        )
        assert setting['mode'] in what and setting['models'] == ['timm-dinov3', 'specvit-dinov3']
    assert {PRESETS['dinov3'][i]['mode'] for _, (i, _), *_ in TARGETS['dinov3']} == {
        'inference',
        'training',
    }
