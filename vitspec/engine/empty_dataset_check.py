"""An empty dataset is an error that names where it looked, not a hang or a 0-sample metric."""

from mmengine.hooks import Hook
from mmengine.registry import HOOKS

from vitspec.errors import DataFileError


@HOOKS.register_module()
class EmptyDatasetCheckHook(Hook):
    priority = 'VERY_HIGH'

    def before_train(self, runner):
        _check(runner.train_dataloader.dataset, 'train')

    def before_val(self, runner):
        _check(runner.val_dataloader.dataset, 'val')

    def before_test(self, runner):
        _check(runner.test_dataloader.dataset, 'test')


def _check(dataset, split):
    if len(dataset) == 0:
        where = [getattr(dataset, attr, None) for attr in ('data_root', 'data_prefix', 'ann_file')]
        raise DataFileError(
            f'the {split} dataset ({type(dataset).__name__}) is empty: '
            + ', '.join(str(w) for w in where if w)
        )
