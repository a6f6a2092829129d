"""``--cfg-options`` on a variable of the config file: ``data_root`` reaches every dataloader and
evaluator that holds its value; any other variable copied into the config is refused with the
keys to set instead, since changing it after the file ran changes nothing."""

import pytest

from tests.tools.test_config_errors import DEMO, args_for
from tests.utils import ROOT
from vitspec.runs.runner import config_from_args

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
        ('crop_size=(64,64)', ['train_dataloader.dataset.pipeline.4.crop_size']),
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


EOMT = ROOT / 'configs/demo/eomt_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
DEMOS = ROOT / 'configs/demo'
ADAPTER = DEMOS / 'mask2former_specvit-tiny-p8-adapter_2xb4-500it_demo-ade20k-128x128.py'


def refusal(config, option) -> str:
    with pytest.raises(ValueError, match='is a variable of the config file') as info:
        config_from_args(args_for(config, option))
    return str(info.value).split('Set the keys that use it instead: ')[1]


def test_keys_computed_from_the_variable_are_named_with_their_expression():
    """max_iters=6 on EoMT listed the loop and scheduler keys but not MaskAnnealingHook's
    start_iters / end_iters (max_iters // 6): set as advised, the masks never annealed."""
    keys = refusal(EOMT, 'max_iters=6')
    cfg = config_from_args(args_for(EOMT))
    hook = next(i for i, h in enumerate(cfg.custom_hooks) if h.type == 'MaskAnnealingHook')
    period = 'where mask_annealing_period = _base_.max_iters // 6'
    for key in ('train_cfg.max_iters', 'param_scheduler.1.end', 'train_cfg.val_interval'):
        assert key in keys
    assert (
        f'custom_hooks.{hook}.start_iters (= [mask_annealing_period, 2 * mask_annealing_period], '
        f'{period})'
    ) in keys
    assert f'custom_hooks.{hook}.end_iters (= [2 * mask_annealing_period' in keys


def test_a_milestone_derived_from_max_iters_is_named():
    """Detection max_iters=100 left out param_scheduler.1.milestones (0.8 x max_iters)."""
    keys = refusal(DET, 'max_iters=100')
    assert 'param_scheduler.1.milestones (= [int(max_iters * 0.8)])' in keys


def test_every_use_of_a_derived_variable_is_named():
    """mask_annealing_period=1 named one of its four uses (the one whose value matched)."""
    keys = refusal(EOMT, 'mask_annealing_period=1')
    assert keys.count('.start_iters (= ') == 1 and keys.count('.end_iters (= ') == 1
    assert '[mask_annealing_period, 2 * mask_annealing_period]' in keys
    assert '[2 * mask_annealing_period, 3 * mask_annealing_period]' in keys


def test_keys_are_matched_by_use_not_by_an_equal_value():
    """heads=8 on the adapter listed every key whose value happened to be the same
    (train_dataloader.batch_size, vit.mlp_ratio ...)."""
    keys = refusal(ADAPTER, 'heads=4').split(', ')
    assert 'model.backbone.deform_num_heads' in keys
    assert all('num_heads' in key for key in keys), keys
    assert not any(key.startswith(('train_dataloader', 'toy_attn')) for key in keys)
