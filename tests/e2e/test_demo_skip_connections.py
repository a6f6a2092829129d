"""End to end on the demo ADE20K-layout data: the "Always Skip Attention" demo variants (the demo
FCN without the attention skip, without the MLP skip) build from their configs, train a few
iterations with finite losses, and are other models than the plain one: the same weights give
other features. What they reach after the demo's 500 iterations is in docs/techniques.md; a short
run shows no more than that they train."""

import math

import pytest
import torch
from mmengine.config import Config
from mmengine.registry import DefaultScope
from mmseg.registry import MODELS

from tests.e2e.demo_run import train_losses
from tests.utils import ROOT, make_demo_data

PLAIN = 'configs/demo/fcn_specvit-tiny-p8-plain_2xb4-500it_demo-ade20k-128x128.py'
VARIANTS = {
    'attn': 'configs/demo/fcn_specvit-tiny-p8-no-attention-skip_2xb4-500it_demo-ade20k-128x128.py',
    'mlp': 'configs/demo/fcn_specvit-tiny-p8-no-mlp-skip_2xb4-500it_demo-ade20k-128x128.py',
}
ITERS = 4


def backbone(config):
    torch.manual_seed(0)
    with DefaultScope.overwrite_default_scope('mmseg'):
        return MODELS.build(Config.fromfile(ROOT / config).model.backbone).eval()


@pytest.mark.parametrize('removed', sorted(VARIANTS))
def test_a_demo_without_a_skip_trains_and_differs_from_the_plain_one(removed, tmp_path):
    model, plain = backbone(VARIANTS[removed]), backbone(PLAIN)
    assert all(not getattr(b, f'skip_{removed}') for b in model.blocks)
    model.load_state_dict(plain.state_dict())  # the same parameters: only the skips differ
    x = torch.randn(1, 3, 128, 128)
    with torch.no_grad():
        assert not torch.allclose(model(x)[0], plain(x)[0], atol=1e-3)

    data = make_demo_data(tmp_path / 'data', 'ade20k', 8, 2)
    losses = train_losses(VARIANTS[removed], data, tmp_path / 'work', ITERS, warmup_end=2)
    assert all(math.isfinite(loss) for loss in losses), losses
    assert (tmp_path / 'work' / f'iter_{ITERS}.pth').is_file()
