"""End to end on the demo COCO-layout data: the DINO demo config trains in process for a few
dozen iterations and its box AP, from CocoMetric at the end of training, is above that of the
same model untrained (one iteration at lr 0, measured here too).

The demo's own 300 iterations are for a user's run. In this test (100 training / 24 validation
images) 80 iterations reached bbox AP 0.030 / AP50 0.114 here, 40 iterations 0.001 / 0.006, the
untrained model 0.000 / 0.000. 59 s on one core (OMP_NUM_THREADS=1, host load about 2)."""

from tests.e2e.demo_run import load
from tests.utils import ROOT, make_demo_data, restored_mmengine_instances
from vitspec.runs.logs import last_validation, read_records, scalar_files

CONFIG = 'configs/demo/dino-4scale_specvit-tiny-p8_simplefpn_1xb4-300it_demo-coco-128x128.py'
ITERS = 80


def train(data, work, iters, *options):
    ann = data / 'annotations' / 'instances_val2017.json'
    tool = load('train_tool', ROOT / 'tools' / 'train.py')
    with restored_mmengine_instances():  # each run its own visualizer, writing to its work dir
        tool.main(
            [
                CONFIG,
                '--work-dir',
                str(work),
                '--cfg-options',
                *(f'{s}_dataloader.dataset.data_root={data}/' for s in ('train', 'val', 'test')),
                f'val_evaluator.ann_file={ann}',
                f'train_cfg.max_iters={iters}',
                f'train_cfg.val_interval={iters}',
                f'default_hooks.checkpoint.interval={iters}',
                'default_hooks.logger.interval=1',
                'param_scheduler.0.end=6',  # warm-up within the short run, no lr drop
                f'param_scheduler.1.end={iters}',
                *options,
            ]
        )
    losses = [r['loss'] for r in read_records(scalar_files(work)[-1]) if 'loss' in r]
    return losses, last_validation(work, 'coco/bbox_mAP')


def test_dino_demo_learns_to_detect(tmp_path):
    data = make_demo_data(tmp_path / 'data', 'coco', 100, 24)
    _, untrained = train(data, tmp_path / 'untrained', 1, 'optim_wrapper.optimizer.lr=0.0')
    losses, trained = train(data, tmp_path / 'trained', ITERS)
    assert len(losses) == ITERS
    first, last = sum(losses[:5]) / 5, sum(losses[-5:]) / 5
    assert last < 0.9 * first, losses
    for metric in ('coco/bbox_mAP', 'coco/bbox_mAP_50'):
        assert trained[metric] > untrained[metric], (metric, trained, untrained)
