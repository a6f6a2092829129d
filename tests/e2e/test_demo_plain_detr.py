"""End to end on the demo COCO-layout data, in process (tests/e2e/demo_run.py): the PlainDETR demo
config trains (its loss falls) and tools/test.py evaluates the checkpoint with CocoMetric (bbox).
A smoke test of the training path: 30 iterations show learning, not a useful AP."""

import json
import re

from tests.e2e.demo_run import load, train_losses
from tests.utils import ROOT, make_demo_data

CONFIG = 'configs/demo/plain-detr_specvit-tiny-p8_2xb4-800it_demo-coco-160x160.py'
ITERS = 30


def coco_options(root):
    ann = root / 'annotations' / 'instances_val2017.json'
    return [f'val_evaluator.ann_file={ann}', f'test_evaluator.ann_file={ann}']


def test_plain_detr_demo_trains_then_tools_test_evaluates(tmp_path, capsys, monkeypatch):
    data = make_demo_data(tmp_path / 'data', 'coco', 16, 4)
    work = tmp_path / 'work'
    losses = train_losses(CONFIG, data, work, ITERS, warmup_end=6)
    first, last = sum(losses[:5]) / 5, sum(losses[-5:]) / 5
    assert last < 0.9 * first, losses

    capsys.readouterr()
    load('test_tool', ROOT / 'tools' / 'test.py').main(
        [CONFIG, str(work / f'iter_{ITERS}.pth'), '--work-dir', str(tmp_path / 'test'),
         '--cfg-options', *(f'{s}_dataloader.dataset.data_root={data}' for s in ('val', 'test')),
         *coco_options(data)]
    )  # fmt: skip
    line = re.search(r'^vitspec-metrics (.*)$', capsys.readouterr().out, re.M)
    assert line, 'tools/test.py printed no metrics'
    metrics = json.loads(line.group(1))
    assert 0.0 <= metrics['coco/bbox_mAP'] <= 1.0, metrics
