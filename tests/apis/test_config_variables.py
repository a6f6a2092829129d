"""``--cfg-options`` on a variable of the config file: ``data_root`` reaches every dataloader and
evaluator that holds its value; any other variable copied into the config is refused with the
keys to set instead, since changing it after the file ran changes nothing."""

import pytest

from tests.tools.test_config_errors import DEMO, args_for
from tests.utils import ROOT
from vitspec.apis.runner import config_from_args

DET = ROOT / 'configs/demo/mask-rcnn_specvit-tiny-p8_simplefpn_2xb4-800it_demo-coco-160x160.py'
SPLITS = ('train', 'val', 'test')
EVALUATED = """
data_root = 'data/x/'
train_dataloader = dict(dataset=dict(type='D', data_root=data_root, ann_file='train.json'))
val_dataloader = dict(dataset=dict(type='D', data_root=data_root, ann_file='val.json'))
test_dataloader = val_dataloader
val_evaluator = dict(type='CocoMetric', ann_file=data_root + 'annotations/val.json')
test_evaluator = val_evaluator
work_dir = 'data/x/runs'
"""


def test_data_root_reaches_every_dataloader_of_the_detection_demo():
    cfg = config_from_args(args_for(DET, 'data_root=/elsewhere/coco/'))
    assert [cfg[f'{s}_dataloader'].dataset.data_root for s in SPLITS] == ['/elsewhere/coco/'] * 3


def test_data_root_reaches_evaluator_paths_under_it(tmp_path):
    config = tmp_path / 'c.py'
    config.write_text(EVALUATED)
    cfg = config_from_args(args_for(config, 'data_root=/new'))
    assert cfg.test_dataloader.dataset.data_root == '/new'
    assert cfg.val_evaluator.ann_file == cfg.test_evaluator.ann_file == '/new/annotations/val.json'
    assert cfg.work_dir == 'unused'  # only dataloaders and evaluators follow it


def test_a_dataloader_key_given_beside_data_root_wins():
    options = ('data_root=/a/', 'val_dataloader.dataset.data_root=/b/')
    cfg = config_from_args(args_for(DET, *options))
    assert cfg.train_dataloader.dataset.data_root == '/a/'
    assert cfg.val_dataloader.dataset.data_root == '/b/'


@pytest.mark.parametrize(
    'option, keys',
    [
        ('max_iters=6', ['train_cfg.max_iters', 'param_scheduler.1.end']),
        ('crop_size=(64,64)', ['train_dataloader.dataset.pipeline.3.crop_size']),
        ('train_pipeline.0.type=X', ['train_dataloader.dataset.pipeline.0.type']),
    ],
)
def test_another_variable_of_the_file_is_refused_naming_the_keys(option, keys):
    with pytest.raises(ValueError, match='is a variable of the config file') as info:
        config_from_args(args_for(DEMO, option))
    for key in keys:
        assert key in str(info.value)


def test_data_root_without_the_variable_names_the_dataset_keys(tmp_path):
    config = tmp_path / 'c.py'
    config.write_text("train_dataloader = dict(dataset=dict(type='D', data_root='d'))\n")
    with pytest.raises(
        ValueError, match=r'no variable data_root.*train_dataloader.dataset.data_root'
    ):
        config_from_args(args_for(config, 'data_root=/new'))


def test_keys_the_runner_reads_are_set_as_given():
    cfg = config_from_args(args_for(DEMO, 'randomness.seed=3', 'load_from=x.pth'))
    assert (cfg.randomness.seed, cfg.load_from) == (3, 'x.pth')
