"""Every config of the reproduction ledger trains 2 iterations and evaluates on the demo data,
in this one process: data root swapped, sizes and widths shrunk (tests/shrink_config.py),
everything else as shipped."""

import pytest

from tests.shrink_config import shrink
from tests.utils import ROOT, make_demo_data
from vitspec.ledger.rows import load_ledger
from vitspec.runs.evaluation import enable_tta
from vitspec.runs.runner import build_runner

LEDGER = load_ledger()
CONFIGS = sorted({row['config'] for row in LEDGER['rows']})
METRIC = {
    'ade20k': 'mIoU',
    'cityscapes': 'mIoU',
    'voc': 'mIoU',
    'nyu': 'rmse',
    'kitti': 'rmse',
    'coco': None,
}


@pytest.fixture(scope='module')
def demo_roots(tmp_path_factory):
    roots = {}

    def root(dataset):
        if dataset not in roots:
            roots[dataset] = make_demo_data(tmp_path_factory.mktemp(dataset), dataset, 4, 2)
        return roots[dataset]

    return root


@pytest.mark.parametrize('config', CONFIGS)
def test_ledger_config_trains_and_evaluates_on_demo_data(config, demo_roots, tmp_path):
    dataset = config.split('/')[1]
    cfg = shrink(ROOT / config, str(demo_roots(dataset)), str(tmp_path / 'work'))
    tta = 'tta_pipeline' in cfg and cfg.get('test_with_tta', False)
    runner = build_runner(cfg)
    runner.train()
    metrics = runner.test()
    if METRIC[dataset]:
        assert METRIC[dataset] in metrics, metrics
    if tta:
        cfg = shrink(ROOT / config, str(demo_roots(dataset)), str(tmp_path / 'tta'))
        enable_tta(cfg)
        metrics = build_runner(cfg).test()
        assert METRIC[dataset] in metrics, metrics
