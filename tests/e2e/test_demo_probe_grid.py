"""The demo probe grid with tools/dist_train.sh on 2 CPU processes: six heads trained on one
backbone pass per batch, their metrics side by side in the log, and the best head written as a
checkpoint of its own config that tools/test.py evaluates to the metric the grid gave it."""

import json
import re

import pytest
import torch

from tests.utils import make_demo_data, run_tool

CONFIG = 'configs/demo/lin-grid_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py'


@pytest.fixture(scope='module')
def demo_nyu(tmp_path_factory):
    return make_demo_data(tmp_path_factory.mktemp('demo'), 'nyu', 8, 4)


def test_dist_train_writes_the_best_head_and_test_agrees(demo_nyu, tmp_path):
    roots = [f'{s}_dataloader.dataset.data_root={demo_nyu}' for s in ('train', 'val', 'test')]
    work = tmp_path / 'work'
    done = run_tool(
        [
            'tools/dist_train.sh',
            CONFIG,
            2,
            '--work-dir',
            work,
            '--cfg-options',
            *roots,
            'train_cfg.max_iters=6',
            'train_cfg.val_interval=6',
        ]
    )
    log = done.stdout + done.stderr
    assert 'probe grid at iteration 6, rmse (less is better)' in log, log[-3000:]
    record = json.loads((work / 'probe_grid.json').read_text())
    scores = record['history'][-1]['scores']
    assert len(scores) == 6 and record['best'] == min(scores, key=scores.get)

    checkpoint = torch.load(work / 'best_probe.pth', weights_only=True)
    assert checkpoint['meta']['probe_grid']['head'] == record['best']
    assert {k.split('.')[0] for k in checkpoint['state_dict']} == {'backbone', 'decode_head'}

    tested = run_tool(
        [
            'tools/test.py',
            work / 'best_probe.py',
            work / 'best_probe.pth',
            '--work-dir',
            tmp_path / 'test',
            '--cfg-options',
            *roots,
        ]
    )
    line = re.search(r'^vitspec-metrics (.*)$', tested.stdout, re.M)
    assert line, tested.stdout[-3000:]
    assert json.loads(line.group(1))['rmse'] == pytest.approx(scores[record['best']], abs=1e-5)
