"""End to end on the demo ADE20K-layout data: the EoMT demo config trains (its loss falls) and
tools/test.py evaluates the checkpoint, single-scale and with --tta (multi-scale + flip).

In process (tests/e2e/demo_run.py). The demo's own 500 iterations reach about the demo FCN's
mIoU (docs in configs/demo/README.md); the short run here shows learning, not that level."""

from tests.e2e.demo_run import evaluated_miou, train_losses
from tests.e2e.test_demo_segmentation import constant_predictor_bound
from tests.utils import make_demo_data

CONFIG = 'configs/demo/eomt_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
ITERS = 30


def test_eomt_demo_trains_then_tools_test_evaluates(tmp_path, capsys):
    data = make_demo_data(tmp_path / 'data', 'ade20k', 16, 4)
    work = tmp_path / 'work'
    losses = train_losses(CONFIG, data, work, ITERS, warmup_end=6)
    first, last = sum(losses[:5]) / 5, sum(losses[-5:]) / 5
    assert last < 0.8 * first, losses  # about 50 -> 35 here

    ckpt = work / f'iter_{ITERS}.pth'
    miou = evaluated_miou(CONFIG, ckpt, data, tmp_path / 'test', capsys)
    tta_miou = evaluated_miou(CONFIG, ckpt, data, tmp_path / 'tta', capsys, '--tta')
    # above what any constant prediction can score (30 iterations reached 19 mIoU here)
    chance = constant_predictor_bound(data)
    assert miou > chance, (miou, chance)
    assert tta_miou > chance, (tta_miou, chance)
