"""tools/demo.sh as a newcomer runs it (the short job, 2 processes): it makes the data, trains
and tests, and prints the loss falling, an mIoU well above any constant prediction's, and next
steps whose checkpoint and configs exist."""

import re
from pathlib import Path

import pytest

from tests.e2e.demo_run import printed_miou
from tests.e2e.test_demo_segmentation import constant_predictor_bound
from tests.utils import ROOT, run_tool

LOSS = re.compile(
    r'^demo loss: ([0-9.]+) at iteration (\d+) -> ([0-9.]+) at iteration (\d+)$',
    re.M,
)
MIOU = re.compile(r'^demo mIoU: ([0-9.]+) \(checkpoint (\S+)\)$', re.M)


def test_the_short_demo_learns_and_names_what_to_run_next(tmp_path):
    env = {'WORK_DIR': str(tmp_path / 'work'), 'DEMO_DATA': str(tmp_path / 'data'), 'NPROC': '2'}
    out = run_tool(['tools/demo.sh', '--no-install'], env=env, timeout=600).stdout
    loss = LOSS.search(out)
    assert loss, out[-3000:]
    first, first_iter, last, last_iter = loss.groups()
    assert (int(first_iter), int(last_iter)) == (10, 150)
    assert float(last) < 0.5 * float(first)
    miou = MIOU.search(out)
    assert miou, out[-3000:]
    ckpt = Path(miou.group(2))
    assert ckpt == tmp_path / 'work' / 'iter_150.pth' and ckpt.is_file()
    chance = constant_predictor_bound(tmp_path / 'data' / 'ade20k' / 'ADEChallengeData2016')
    assert float(miou.group(1)) > 3 * chance, (miou.group(1), chance)
    # the test run's own metrics line, which the script parsed
    assert float(miou.group(1)) == pytest.approx(printed_miou(out), abs=0.005)
    next_steps = out[out.index('\nNext:') :]
    assert f'tools/infer.py {ckpt} ' in next_steps
    assert 'tools/demo.sh --long' in next_steps
    configs = re.findall(r'(configs/\S+\.py)', next_steps)
    assert configs and all((ROOT / c).is_file() for c in configs)
    assert 'tools/check_data.py configs/ade20k/' in next_steps
    assert 'tools/dist_train.sh configs/ade20k/' in next_steps
