"""An empty dataset is an error that names where it looked, not a hang or a 0-sample metric;
so is a detection training set without one instance to learn from (every box dropped as
invalid, or ignored), which mmdet trains on with empty targets."""

from mmengine.hooks import Hook
from mmengine.registry import HOOKS

from vitspec.errors import DataFileError


@HOOKS.register_module()
class EmptyDatasetCheckHook(Hook):
    priority = 'VERY_HIGH'

    def before_train(self, runner):
        _check(runner.train_dataloader.dataset, 'train')
        _check_instances(runner.train_dataloader.dataset, 'train')

    def before_val(self, runner):
        _check(runner.val_dataloader.dataset, 'val')

    def before_test(self, runner):
        _check(runner.test_dataloader.dataset, 'test')


def _check(dataset, split):
    if len(dataset) == 0:
        raise DataFileError(
            f'the {split} dataset ({type(dataset).__name__}) is empty: {_where(dataset)}'
        )


def _check_instances(dataset, split):
    """Detection data (samples with ``instances``): stops unless some sample holds an instance
    that is not ignored. Reads samples until the first such instance, usually the first."""
    get = getattr(dataset, 'get_data_info', None)
    if get is None or len(dataset) == 0 or 'instances' not in get(0):
        return
    for i in range(len(dataset)):
        if any(not inst.get('ignore_flag', 0) for inst in get(i)['instances']):
            return
    raise DataFileError(
        f'the {split} dataset ({type(dataset).__name__}) has {len(dataset)} images but not one '
        f'instance to learn from: every annotation was dropped (see the WARNINGs on dropped '
        f'annotations above) or is ignored (iscrowd, no usable polygon): {_where(dataset)}'
    )


def _where(dataset) -> str:
    where = [getattr(dataset, attr, None) for attr in ('data_root', 'data_prefix', 'ann_file')]
    return ', '.join(str(w) for w in where if w)
